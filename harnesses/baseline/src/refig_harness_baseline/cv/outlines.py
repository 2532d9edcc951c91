"""One candidate box's outline: its ring width, kind (box, circle, ellipse), corner radius, and
whether it is a single outline of one colour."""

from __future__ import annotations

import cv2
import numpy as np

from refig_harness_baseline.cv.colours import distance, mode
from refig_harness_baseline.cv.scene import RGB
from refig_harness_baseline.cv.units import FG_DISTANCE

#: Largest colour distance between pixels of one outline's core (antialiasing included), and
#: the least share of each side's core an outline's colour takes.
OUTLINE_SPREAD = 50
OUTLINE_SHARE = 0.15



def ring_width(fg: np.ndarray, x: int, y: int, w: int, h: int) -> float:
    """Outline thickness of a hole at (x, y, w, h): foreground run outwards at mid-sides.

    The second shortest of the four runs: a dash gap shortens one, links attached at
    mid-side lengthen others.
    """
    height, width = fg.shape
    runs: list[int] = []
    for dx, dy, px, py in ((0, -1, x + w // 2, y - 1), (0, 1, x + w // 2, y + h),
                           (-1, 0, x - 1, y + h // 2), (1, 0, x + w, y + h // 2)):
        n = 0
        while 0 <= px < width and 0 <= py < height and fg[py, px] and n < 20:
            n += 1
            px, py = px + dx, py + dy
        runs.append(n)
    return float(np.clip(sorted(runs)[1], 1, 12))


def classify(area: float, w: int, h: int) -> str | None:
    """``rect`` or ``ellipse`` for a blob of ``area`` pixels in a w x h box, or None."""
    fill = area / float(w * h)
    if fill >= 0.86:
        return "rect"
    ellipse = area / (np.pi / 4 * w * h)
    if 0.75 <= fill <= 0.81 and abs(ellipse - 1) < 0.03 and 0.4 < w / h < 2.5:
        return "ellipse"
    return None


def ellipse_blob(blob: np.ndarray) -> bool:
    """True when ``blob`` fills the ellipse inscribed in its box and spills little beyond it."""
    h, w = blob.shape
    if not 0.4 < w / h < 2.5:
        return False
    inside = np.zeros_like(blob)
    cv2.ellipse(inside, ((w / 2 - 0.5, h / 2 - 0.5), (w, h), 0), 1, cv2.FILLED)
    cover = float((blob & inside).sum()) / max(1, int(inside.sum()))
    spill = float((blob & (1 - inside)).sum()) / max(1, int(blob.sum()))
    return cover >= 0.95 and spill <= 0.1


def _corner_radius(ink: np.ndarray, x: int, y: int, w: int, h: int) -> float:
    """Corner radius of a box outline, in pixels (0 for sharp corners).

    From each corner, walk the diagonal inwards to the first ink: a circular corner of radius
    r leaves r (sqrt 2 - 1) of page there. The median of the four corners resists an arrow
    or a label touching one of them.
    """
    height, width = ink.shape
    steps: list[int] = []
    for cx, cy, dx, dy in ((x, y, 1, 1), (x + w - 1, y, -1, 1), (x, y + h - 1, 1, -1),
                           (x + w - 1, y + h - 1, -1, -1)):
        n = 0
        limit = min(w, h) // 2
        while n < limit:
            px, py = cx + n * dx, cy + n * dy
            if not (0 <= px < width and 0 <= py < height) or ink[py, px]:
                break
            n += 1
        steps.append(n)
    return float(np.median(steps)) / (np.sqrt(2) - 1)


def shape(kind: str, ink: np.ndarray, x: int, y: int, w: int, h: int) -> tuple[str, float]:
    """Geometry and roundRect adjustment (radius over the shorter side) of a found box."""
    if kind == "ellipse":
        return kind, 0.0
    radius = _corner_radius(ink, x, y, w, h)
    if radius < 3:
        return "rect", 0.0
    return "roundRect", round(float(min(0.5, radius / min(w, h))), 3)


def one_outline(sub: np.ndarray, bg: RGB, x: int, y: int, w: int, h: int, depth: int) -> bool:
    """True when one colour inks all four sides around a hole, as a drawn outline does.

    Connectors routed between boxes enclose holes too, bounded by lines and by the outlines of
    the boxes they join, which differ in colour (or leave a side bare). Each side is judged on
    its most inked half (a line's core, not its antialiasing); a head or a label touching one
    side adds a colour there but does not take the outline's away.
    """
    qx, qy = max(1, w // 4), max(1, h // 4)
    top, left = max(0, y - depth), max(0, x - depth)
    strips = [sub[top:y + 2, x + qx:x + w - qx], sub[y + h - 2:y + h + depth, x + qx:x + w - qx],
              sub[y + qy:y + h - qy, left:x + 2], sub[y + qy:y + h - qy, x + w - 2:x + w + depth]]
    cores: list[np.ndarray] = []
    for strip in strips:
        pixels = strip.reshape(-1, 3)
        away = distance(pixels, bg)
        inked = away > FG_DISTANCE
        if inked.sum() < 4:
            return False
        cores.append(pixels[inked][away[inked] >= np.median(away[inked])])
    modes = [mode(core) for core in cores]
    return any(all((distance(core, mode) < OUTLINE_SPREAD).mean() >= OUTLINE_SHARE
                   for core in cores) for mode in modes if mode is not None)
