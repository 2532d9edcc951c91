"""Text into boxes (each OCR line into the innermost box holding it) and the operator symbols of
small circles."""

from __future__ import annotations

import itertools

import cv2
import numpy as np

from refig_harness_baseline.cv.colours import distance
from refig_harness_baseline.cv.glyphs import read_symbol
from refig_harness_baseline.cv.scene import RGB, Box, Rect, TextLine
from refig_harness_baseline.cv.units import sizes


def assign_text(boxes: list[Box], texts: list[TextLine]) -> list[TextLine]:
    """Put each OCR line into the innermost leaf box holding it; return the free lines."""
    free: list[TextLine] = []
    for line in texts:
        holders = [b for b in boxes if b.rect.contains(line.rect, slack=2)]
        inner = min(holders, key=lambda b: b.rect.area, default=None)
        if inner is not None and inner.children == 0 and inner.geometry != "ellipse":
            inner.texts.append(line)
        else:
            free.append(line)
    for box in boxes:
        # A shape's own text is one centred block: right for a label or a paragraph, wrong for
        # labels spread over a panel, which keep their places as text boxes.
        if box.texts and not _one_block(box.texts, box.rect):
            free.extend(box.texts)
            box.texts = []
    return free


def read_operators(img: np.ndarray, bg: RGB, boxes: list[Box], labels: list[TextLine]
                   ) -> list[TextLine]:
    """Give each small empty circle its operator symbol (+, ×, σ...) as its own text.

    OCR seldom reads a lone glyph; when it did, that line moves into the circle. Returns the
    free lines left.
    """
    min_side, _ = sizes(img)
    for box in boxes:
        r = box.rect
        if box.geometry != "ellipse" or box.children or box.texts or max(r.w, r.h) > 5 * min_side:
            continue
        inside = [t for t in labels if r.contains(t.rect, slack=2)]
        if inside:
            if len(inside) == 1 and len(inside[0].text.strip()) <= 2:
                box.texts = inside
                labels = [t for t in labels if t is not inside[0]]
            continue
        inset = int(np.ceil(box.line_px)) + 2
        x0, y0, x1, y1 = int(r.x) + inset, int(r.y) + inset, int(r.x1) - inset, int(r.y1) - inset
        if x1 - x0 < 6 or y1 - y0 < 6:
            continue
        crop = img[y0:y1, x0:x1]
        inner = np.zeros(crop.shape[:2], np.uint8)
        cv2.ellipse(inner, ((x1 - x0) // 2, (y1 - y0) // 2), ((x1 - x0) // 2 - 1,
                    (y1 - y0) // 2 - 1), 0, 0, 360, 1, cv2.FILLED)
        ink = (distance(crop, box.fill or bg) > 80) & (inner == 1)
        ys, xs = np.nonzero(ink)
        if len(xs) < 4 or max(np.ptp(xs), np.ptp(ys)) < 0.25 * min(x1 - x0, y1 - y0):
            continue
        found = read_symbol(ink)
        if found is None:
            continue
        symbol, size = found
        color = tuple(int(c) for c in np.median(crop[ink], axis=0))
        rect = Rect(x0 + xs.min(), y0 + ys.min(), np.ptp(xs) + 1, np.ptp(ys) + 1)
        box.texts = [TextLine(symbol, rect, color, size_px=size)]  # type: ignore[arg-type]
    return labels


def _one_block(lines: list[TextLine], rect: Rect) -> bool:
    """True when the lines stack as one paragraph, centred across ``rect``."""
    ordered = sorted(lines, key=lambda t: t.rect.y)
    for above, below in itertools.pairwise(ordered):
        if below.rect.y - above.rect.y1 > max(above.rect.h, below.rect.h):
            return False
    left = min(t.rect.x for t in lines)
    right = max(t.rect.x1 for t in lines)
    return abs((left + right) / 2 - rect.center[0]) < 0.2 * rect.w
