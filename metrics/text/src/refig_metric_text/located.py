"""The source's words with where they sit, so a pasted piece of the source is read from them.

A picture found in the source (:func:`refig_toolkit_imaging.locating.locate`) holds the source's
words in the region it was found at: those words are taken from the reference (the annotation's
labels, or the source's OCR lines), not read again by OCR. Each word gets a box, as fractions of the
source: a label's or line's box is cut into text lines, and each line along its characters. A word
counts as inside a region when at least half of its box is inside: a word cut in half is read by OCR
of the piece about as often as not, so half is the even point, and a word stays a whole token for
the one-to-one matching.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from refig_toolkit_imaging.locating import Match
from refig_toolkit_imaging.ocr import OcrLine
from refig_toolkit_pptx.slide_text import word_tokens

Box = tuple[float, float, float, float]
#: Share of a word's box that must lie inside a region for the word to count as in it.
MIN_INSIDE = 0.5
_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class Word:
    """One case-folded word token and its box ``(left, top, right, bottom)`` as fractions of the
    source figure (None when the reference does not say where the word is)."""

    token: str
    box: Box | None


def laid_out(text: str, box: Box) -> list[Word]:
    """The tokens of ``text`` (lines split on newlines) with boxes: the box cut into equal bands,
    one per line, and each band along the line's characters."""
    lines = [line for line in text.splitlines() if line.strip()] or [text]
    x0, y0, x1, y1 = box
    band = (y1 - y0) / len(lines)
    words: list[Word] = []
    for row, line in enumerate(lines):
        folded = unicodedata.normalize("NFKC", line).casefold()
        top = y0 + row * band
        step = (x1 - x0) / max(1, len(folded))
        for chunk in _WORD.finditer(folded):
            left, right = x0 + chunk.start() * step, x0 + chunk.end() * step
            words += [Word(token, (left, top, right, top + band))
                      for token in word_tokens(chunk.group())]
    return words


def label_words(annotation: Mapping[str, Any]) -> list[Word]:
    """The words of an annotation's labels (the same ones, in the same order, as the text
    metric's label reference) with their boxes in the annotated image."""
    image = annotation.get("image") or {}
    width, height = float(image.get("width") or 0), float(image.get("height") or 0)

    def scaled(*candidates: Any) -> Box | None:
        for raw in candidates:
            if isinstance(raw, list) and len(raw) == 4 and width > 0 and height > 0:
                x0, y0, x1, y1 = (float(v) for v in raw)
                return (x0 / width, y0 / height, x1 / width, y1 / height)
        return None

    items: list[tuple[Any, Box | None]] = [
        (_as_drawn(n), scaled(n.get("text_box"), n.get("box")))
        for n in annotation.get("nodes") or () if isinstance(n, dict)]
    for part, key in (("panels", "title"), ("groups", "title"), ("edges", "label")):
        items += [(item.get(key), scaled(item.get(f"{key}_box"), item.get("box")))
                  for item in annotation.get(part) or () if isinstance(item, dict)]
    words: list[Word] = []
    for text, box in items:
        if isinstance(text, str):
            words += laid_out(text, box) if box else [Word(t, None) for t in word_tokens(text)]
    return words


def _as_drawn(node: Mapping[str, Any]) -> Any:
    """A node's text broken into the lines it is drawn on, when those hold the same words."""
    text, lines = node.get("text"), node.get("lines")
    if (isinstance(text, str) and isinstance(lines, list)
            and all(isinstance(line, str) for line in lines)
            and word_tokens(" ".join(lines)) == word_tokens(text)):
        return "\n".join(lines)
    return text


def line_words(lines: Iterable[OcrLine], width: int, height: int) -> list[Word]:
    """The words of OCR lines read in a ``width`` x ``height`` picture, with their boxes."""
    return [word for line in lines
            for word in laid_out(line.text, (line.box[0] / width, line.box[1] / height,
                                             line.box[2] / width, line.box[3] / height))]


def _inside(box: Box, region: Box) -> float:
    """The share of ``box`` inside ``region`` (a degenerate box counts by its centre)."""
    area = (box[2] - box[0]) * (box[3] - box[1])
    if area <= 0:
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        return float(region[0] <= cx <= region[2] and region[1] <= cy <= region[3])
    w = max(0.0, min(box[2], region[2]) - max(box[0], region[0]))
    h = max(0.0, min(box[3], region[3]) - max(box[1], region[1]))
    return w * h / area


def source_region(found: Match, trimmed: Box) -> Box:
    """A match's region as fractions of the source as decoded (the search works on the source
    trimmed of its margins, ``trimmed``: :func:`refig.plugin.source_box`)."""
    if found.kind != "crop":
        return (0.0, 0.0, 1.0, 1.0)
    bx0, by0, bx1, by1 = trimmed
    w, h = bx1 - bx0, by1 - by0
    r = found.region
    return (bx0 + r[0] * w, by0 + r[1] * h, bx0 + r[2] * w, by0 + r[3] * h)


def words_in(words: Iterable[Word], region: Box) -> list[str] | None:
    """The tokens of ``words`` with at least :data:`MIN_INSIDE` of their box inside ``region``;
    None when a word has no box and the region is not the whole figure (then nothing says which
    words the region holds, and the picture is read by OCR instead)."""
    words = list(words)
    if region == (0.0, 0.0, 1.0, 1.0):
        return [word.token for word in words]
    if any(word.box is None for word in words):
        return None
    return [word.token for word in words
            if word.box is not None and _inside(word.box, region) >= MIN_INSIDE]
