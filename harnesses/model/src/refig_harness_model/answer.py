"""The program inside a model's answer: the longest fenced code block, else the whole answer."""

from __future__ import annotations

import re

# An opening fence of three or more backticks or tildes, its info string, the body, and the same
# fence closing it on a line of its own.
_BLOCK = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})[^\n]*\n(?P<body>.*?)^[ \t]*(?P=fence)[ \t]*$",
                    re.MULTILINE | re.DOTALL)
# An opening fence that is never closed (an answer cut at its token limit).
_OPEN = re.compile(r"^[ \t]*(?:`{3,}|~{3,})[^\n]*\n(?P<body>.*)\Z", re.MULTILINE | re.DOTALL)


class NoCode(Exception):
    """The answer holds no code at all (empty, or only empty fences)."""


def extract_code(answer: str | None) -> str:
    """The code of ``answer``; the longest block wins, so a short ``pip install`` aside loses."""
    text = (answer or "").replace("\r\n", "\n")
    blocks = [m.group("body") for m in _BLOCK.finditer(text)]
    if not blocks and (cut := _OPEN.search(text)):
        blocks = [cut.group("body")]
    code = max(blocks, key=lambda b: len(b.strip())) if blocks else text
    if not code.strip():
        raise NoCode("the answer holds no code" if text.strip() else "the answer is empty")
    return code.strip("\n") + "\n"
