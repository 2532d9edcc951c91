"""Figure text: OCR lines with their colour, slide font size and the word spaces OCR dropped."""

from __future__ import annotations

import functools

import numpy as np
from PIL import Image, ImageFont
from refig_toolkit_imaging.ocr import read_text

from refig_harness_baseline.cv.colours import distance, mode
from refig_harness_baseline.cv.fonts import font_file
from refig_harness_baseline.cv.scene import RGB, Rect, TextLine

#: LibreOffice renders the slide's default font (Calibri) with the metric-compatible Carlito.
_FONT_FILES = ("Carlito-Regular.ttf", "Carlito-Regular.otf")
#: An OCR line box is 0.8 (no descenders) to 1.1 (descenders) of the font size.
LINE_BOX_PER_EM = 0.95


@functools.cache
def _measure_font() -> ImageFont.FreeTypeFont | None:
    found = next(filter(None, map(font_file, _FONT_FILES)), None)
    return None if found is None else ImageFont.truetype(str(found), 100)


def font_size(text: str, rect: Rect) -> float:
    """Font size in pixels so that the slide's font spans the OCR box like the figure's text."""
    by_height = rect.h / LINE_BOX_PER_EM
    font = _measure_font()
    width = font.getlength(text) / 100 if font is not None and text.strip() else 0.0
    if width <= 0:
        return by_height
    # OCR may drop spaces, making the text look narrower: never exceed the height estimate much.
    return min(rect.w / width, 1.15 * by_height)


def restore_spaces(text: str, ink: np.ndarray) -> str:
    """Put back the spaces OCR dropped between words, where the line's ink has word gaps.

    rapidocr often reads "Text Encoder" as "TextEncoder". A blank run of columns wider than a
    fifth of the line height is a word gap. Walking the gaps left to right, each word's inked
    width is matched to the characters whose advances (in the slide font, scaled to this line)
    fill it best, so an error in one word does not carry into the next.
    """
    font = _measure_font()
    if font is None or not text.strip() or any(ord(c) > 0x2E7F for c in text):
        return text
    columns = ink.any(axis=0)
    inked = np.flatnonzero(columns)
    if len(inked) < 2:
        return text
    first, last = int(inked[0]), int(inked[-1])
    gaps: list[tuple[int, int]] = []
    start = None
    for x in range(first, last + 1):
        if not columns[x] and start is None:
            start = x
        elif columns[x] and start is not None:
            if x - start >= max(2.0, ink.shape[0] / 5):
                gaps.append((start, x))
            start = None
    if len(gaps) <= text.count(" "):
        return text
    letters = text.replace(" ", "")
    blank = sum(end - begin for begin, end in gaps)
    scale = (last - first - blank) / max(1.0, font.getlength(letters))
    out, pos, x = [], 0, first
    for begin, end in gaps:
        target = begin - x
        best = min(range(pos + 1, len(text)), default=None,
                   key=lambda j: abs(font.getlength(text[pos:j].replace(" ", "")) * scale - target))
        if best is None:
            break
        out.append(text[pos:best].rstrip(" "))
        pos, x = best + (text[best] == " "), end
    out.append(text[pos:])
    return " ".join(part for part in out if part)


def find_text(flat: Image.Image, img: np.ndarray, bg: RGB) -> list[TextLine]:
    """OCR lines in working pixels, with colour, pixel size and their word spaces."""
    scale = img.shape[1] / flat.width
    full = np.asarray(flat)
    lines: list[TextLine] = []
    for line in read_text(flat):
        x0, y0, x1, y1 = (v * scale for v in line.box)
        rect = Rect(x0, y0, x1 - x0, y1 - y0)
        if rect.w < 2 or rect.h < 2:
            continue
        bx0, by0, bx1, by1 = (int(v) for v in line.box)
        crop = full[max(0, by0):by1 + 1, max(0, bx0):bx1 + 1]
        local = mode(crop.reshape(-1, 3)) or bg
        inked = distance(crop, local) > 80
        pixels = crop[inked]
        color = tuple(int(c) for c in np.median(pixels, axis=0)) if len(pixels) else (0, 0, 0)
        text = restore_spaces(line.text, inked)
        lines.append(TextLine(text, rect, color,  # type: ignore[arg-type]
                              size_px=font_size(text, rect)))
    return lines


def text_mask(shape: tuple[int, int], texts: list[TextLine], pad: int = 0) -> np.ndarray:
    """OCR line boxes, grown by ``pad`` pixels."""
    mask = np.zeros(shape, dtype=np.uint8)
    for t in texts:
        r = t.rect
        mask[max(0, int(r.y) - pad):int(np.ceil(r.y1)) + pad,
             max(0, int(r.x) - pad):int(np.ceil(r.x1)) + pad] = 1
    return mask
