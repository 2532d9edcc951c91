"""Reading FigCodeBench's ``*_auxinfo.txt``: package dependencies, data files, seed, size.

The files are short free text. Lines of the form ``key: value`` (or ``key = value``) are read
for the keys below, case-insensitively; the whole text is kept verbatim as the task's visible
``auxiliary_info``, so nothing in it is lost when a line does not match.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_LINE = re.compile(r"^\s*[-*]?\s*([A-Za-z][A-Za-z _-]*?)\s*[:=]\s*(.+?)\s*$")
_SIZE = re.compile(r"(\d{2,5})\s*[x×,]\s*(\d{2,5})")
_SEED = re.compile(r"-?\d+")
#: List separators: commas, semicolons or spaces outside parentheses ("tikz (positioning,
#: arrows.meta)" is one package with its libraries).
_LIST = re.compile(r"[,;\s]+(?![^()]*\))(?!\()")


@dataclass(frozen=True)
class AuxInfo:
    """What an auxinfo file says; None where it is silent."""

    text: str
    packages: tuple[str, ...] = ()
    data_files: tuple[str, ...] = ()
    seed: int | None = None
    size: tuple[int, int] | None = None


def _key(raw: str) -> str:
    return raw.strip().lower().replace("-", " ").replace("_", " ")


def parse_auxinfo(text: str) -> AuxInfo:
    """The fields of one auxinfo text."""
    packages: list[str] = []
    data: list[str] = []
    seed = size = None
    for line in text.splitlines():
        match = _LINE.match(line)
        if not match:
            continue
        key, value = _key(match.group(1)), match.group(2)
        if "package" in key or "dependenc" in key or "librar" in key:
            packages += [p for p in _LIST.split(value.strip("[]")) if p.strip("'\"")]
        elif "data" in key or key in ("files", "input files"):
            data += [p.strip("'\"") for p in _LIST.split(value.strip("[]")) if p.strip("'\"")]
        elif "seed" in key and (number := _SEED.search(value)):
            seed = int(number.group(0))
        elif ("size" in key or "resolution" in key or "dimension" in key) and (
                found := _SIZE.search(value)):
            size = (int(found.group(1)), int(found.group(2)))
    clean = tuple(dict.fromkeys(p.strip("'\"") for p in packages if p.lower() != "none"))
    files = tuple(dict.fromkeys(d for d in data if d.lower() != "none"))
    return AuxInfo(text, clean, files, seed, size)
