"""The native text a slide shows, and the word tokens metrics compare it by."""

from __future__ import annotations

import re
import unicodedata

from refig_toolkit_pptx.objects import ObjectTree

#: Letters and digits; underscores and punctuation separate words (``x_t`` is ``x`` and ``t``).
_WORD = re.compile(r"[^\W_]+")


def native_text(tree: ObjectTree) -> list[str]:
    """The text of every object that paints (text boxes, shapes, tables, SmartArt, charts), the
    shapes the layout and master paint behind the slide included."""
    return [obj.text for obj in tree.shown(inherited=True) if obj.text.strip()]


def word_tokens(text: str) -> list[str]:
    """Case-folded words after NFKC normalisation (ligatures and full-width forms unfold)."""
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold())
