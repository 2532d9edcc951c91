"""The native text a slide shows, and the word tokens metrics compare it by."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

from refig.models import ObjectTree, SlideObject

#: Letters and digits; underscores and punctuation separate words (``x_t`` is ``x`` and ``t``).
_WORD = re.compile(r"[^\W_]+")


def shown_objects(tree: ObjectTree) -> Iterator[SlideObject]:
    """Objects that paint: not hidden (nor inside a hidden group), and of each
    ``mc:AlternateContent`` only the branch a consumer shows. Unlike :meth:`ObjectTree.shown`,
    this includes the shapes the layout and master paint behind the slide (their text shows)."""
    stack = list(reversed(tree.objects))
    while stack:
        obj = stack.pop()
        if obj.hidden or not obj.alternate_selected:
            continue
        yield obj
        stack.extend(reversed(obj.children))


def native_text(tree: ObjectTree) -> list[str]:
    """The text of every object that paints (text boxes, shapes, tables, SmartArt, charts)."""
    return [obj.text for obj in shown_objects(tree) if obj.text.strip()]


def word_tokens(text: str) -> list[str]:
    """Case-folded words after NFKC normalisation (ligatures and full-width forms unfold)."""
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold())
