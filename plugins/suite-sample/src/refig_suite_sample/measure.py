"""Text extents and line breaking at drawing scale, reported in final pixels."""

from __future__ import annotations

import itertools
import re

from PIL import Image, ImageDraw

from refig_suite_sample.figure import SCALE, line_spacing
from refig_suite_sample.fonts import FontSet
from refig_suite_sample.geometry import (
    Box,
    Point,
)


class Measure:
    """Text extents at drawing scale, reported in final pixels."""

    def __init__(self, fonts: FontSet):
        self.fonts = fonts
        self.draw = ImageDraw.Draw(Image.new("RGB", (1, 1)))

    def box(self, lines: list[str], size: int, face: str, center: Point) -> Box:
        font = self.fonts.get(size * SCALE, face)
        x0, y0, x1, y1 = self.draw.multiline_textbbox(
            (center[0] * SCALE, center[1] * SCALE), "\n".join(lines), font=font, anchor="mm",
            align="center", spacing=line_spacing(size) * SCALE,
        )
        return (x0 / SCALE, y0 / SCALE, x1 / SCALE, y1 / SCALE)

    def size(self, lines: list[str], size: int, face: str = "regular") -> tuple[float, float]:
        x0, y0, x1, y1 = self.box(lines, size, face, (0, 0))
        return x1 - x0, y1 - y0

    def wrap(self, text: str, size: int, max_width: float, max_lines: int) -> list[str] | None:
        """Break ``text`` at spaces into at most ``max_lines`` lines no wider than ``max_width``."""
        tokens = re.findall(r"\S+?-(?=\S)|\S+", text)
        for n_lines in range(1, min(max_lines, len(tokens)) + 1):
            options = []
            for cuts in itertools.combinations(range(1, len(tokens)), n_lines - 1):
                bounds = (0, *cuts, len(tokens))
                lines = [_join(tokens[a:b]) for a, b in itertools.pairwise(bounds)]
                options.append((max(self.size([line], size)[0] for line in lines), lines))
            widest, lines = min(options, key=lambda o: o[0])
            if widest <= max_width:
                return lines
        return None


def _join(tokens: list[str]) -> str:
    """Tokens back into text: a token ending in a hyphen joins the next without a space."""
    return "".join(t if t.endswith("-") else t + " " for t in tokens).strip()
