"""Symbols in small circles (operators +, ×, σ, ⊕ ...; step numbers), which OCR rarely reads
on their own.

The ink inside a circle is matched against each symbol drawn in a few common fonts, both
scaled into the same square keeping their proportions, by normalised cross-correlation
(OpenCV ``matchTemplate``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from refig_harness_baseline.cv.fonts import font_file

SYMBOLS = ("+", "×", "σ", "−", "÷", "⊕", "⊗", "⊙", "∑", "Σ", "∗", "·", *"0123456789")
#: Regular and bold faces of common figure fonts; those installed give the templates.
FONT_FILES = ("Carlito-Regular.ttf", "Carlito-Bold.ttf", "DejaVuSans.ttf", "DejaVuSans-Bold.ttf",
              "DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf", "LiberationSans-Regular.ttf",
              "LiberationSans-Bold.ttf")
SIDE = 32
#: Lowest correlation that names a symbol.
MIN_SCORE = 0.6
RENDER_PX = 100


@dataclass(frozen=True)
class Template:
    symbol: str
    image: np.ndarray  # SIDE x SIDE, float32
    height_per_px: float  # ink height over font size, to size the slide's text


def normalise(ink: np.ndarray) -> np.ndarray | None:
    """The inked bounding box of a mask, scaled to fit a SIDE x SIDE square, centred."""
    ys, xs = np.nonzero(ink)
    if len(xs) == 0:
        return None
    crop = ink[ys.min():ys.max() + 1, xs.min():xs.max() + 1].astype(np.float32)
    h, w = crop.shape
    scale = (SIDE - 4) / max(h, w)
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    small = cv2.resize(crop, size, interpolation=cv2.INTER_AREA)
    canvas = np.zeros((SIDE, SIDE), np.float32)
    top, left = (SIDE - size[1]) // 2, (SIDE - size[0]) // 2
    canvas[top:top + size[1], left:left + size[0]] = small
    return canvas


@functools.cache
def templates() -> tuple[Template, ...]:
    """Every symbol in every installed font that has it (not its missing-glyph box)."""
    made: list[Template] = []
    for path in filter(None, map(font_file, FONT_FILES)):
        font = ImageFont.truetype(str(path), RENDER_PX)
        missing = np.asarray(_draw(font, "\U0010fffd"))
        for symbol in SYMBOLS:
            drawn = np.asarray(_draw(font, symbol))
            if drawn.shape == missing.shape and np.array_equal(drawn, missing):
                continue
            ink = drawn > 127
            image = normalise(ink)
            if image is not None:
                rows = np.flatnonzero(ink.any(axis=1))
                made.append(Template(symbol, image, (rows[-1] - rows[0] + 1) / RENDER_PX))
    return tuple(made)


def _draw(font: ImageFont.FreeTypeFont, text: str) -> Image.Image:
    canvas = Image.new("L", (2 * RENDER_PX, 2 * RENDER_PX), 0)
    ImageDraw.Draw(canvas).text((RENDER_PX // 2, RENDER_PX // 2), text, font=font, fill=255)
    return canvas


def read_symbol(ink: np.ndarray) -> tuple[str, float] | None:
    """The symbol drawn by the mask ``ink`` and its font size in pixels, or None."""
    image = normalise(ink)
    if image is None:
        return None
    best: tuple[float, Template] | None = None
    for template in templates():
        score = float(cv2.matchTemplate(image, template.image, cv2.TM_CCOEFF_NORMED)[0, 0])
        if best is None or score > best[0]:
            best = (score, template)
    if best is None or best[0] < MIN_SCORE:
        return None
    rows = np.flatnonzero(ink.any(axis=1))
    return best[1].symbol, (rows[-1] - rows[0] + 1) / best[1].height_per_px
