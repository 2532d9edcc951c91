"""Pixel masks of strokes: neighbour counts, disks, dash gaps bridged along rows and columns, and
arrow heads (the blobs an opening a little wider than the lines keeps)."""

from __future__ import annotations

import cv2
import numpy as np


def neighbours(mask: np.ndarray) -> np.ndarray:
    """How many of its 8 neighbours each pixel of ``mask`` has set."""
    kernel = np.ones((3, 3), np.float32)
    kernel[1, 1] = 0
    return cv2.filter2D(mask.astype(np.float32), -1, kernel, borderType=cv2.BORDER_CONSTANT)


def disk(radius: int) -> np.ndarray:
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius + 1,) * 2)


def bridge(mask: np.ndarray, gap: int, run: int) -> np.ndarray:
    """Join dashes: horizontal runs across gaps along their row, vertical ones along their column.

    Only runs at least ``run`` long take part, so two parallel lines a few pixels apart are
    never glued together (a plain closing would fill the space between them).
    """
    joined = mask.copy()
    for shape, along in (((1, run), (1, gap)), ((run, 1), (gap, 1))):
        runs = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones(shape, np.uint8))
        joined |= cv2.morphologyEx(runs, cv2.MORPH_CLOSE, np.ones(along, np.uint8))
    return joined


def find_heads(mask: np.ndarray, thickness: float) -> tuple[np.ndarray, np.ndarray]:
    """Arrow-head blobs, as a label image and their boxes (x, y, w, h per label).

    Lines are thinner than the opening's disk and vanish; a head is wider and stays. Blobs far
    larger than a head (filled shapes, glyph masses) are dropped.
    """
    radius = max(2, round(0.75 * thickness + 0.5))
    solid = cv2.morphologyEx(mask, cv2.MORPH_OPEN, disk(radius))
    _, labels, stats, _ = cv2.connectedComponentsWithStats(solid, connectivity=8)
    side = 2 * radius + 1
    large = (stats[:, 4] > (4 * side) ** 2) | (stats[:, 2:4].max(axis=1) > 6 * side)
    large[0] = True
    labels[large[labels]] = 0
    return labels, stats[:, :4]
