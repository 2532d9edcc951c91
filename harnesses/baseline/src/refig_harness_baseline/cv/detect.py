"""Classical-vision reading of a figure: text (OCR), boxes and regions, lines and arrows.

Everything works on a copy scaled to at most ``WORK_SIDE`` pixels, against the local background
(the page, or the fill of the box a pixel lies in):

- text: OCR lines with their colour and size (:mod:`.text`);
- boxes: closed outlines are the holes of the foreground (rounded and dashed outlines included,
  after a small growth) whose four sides are inked alike and that no label or smaller box
  straddles (connectors routed between boxes enclose holes too); filled boxes are what survives
  an opening that removes thin strokes; small circles come from the Hough transform; each box
  is searched again for boxes inside it, against its fill; regions whose outline links cross
  are the holes left once the boxes are erased; a small circle's operator symbol is matched
  against drawn templates (:mod:`.glyphs`);
- links: what remains after erasing text, boxes and outlines is traced into lines and arrows
  (:mod:`.links`); each end is bound to the nearest shape outline within reach.
"""

from __future__ import annotations

import itertools
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
from PIL import Image
from refig.plugin import open_image

from refig_harness_baseline.cv.colours import background, distance, mode
from refig_harness_baseline.cv.glyphs import read_symbol
from refig_harness_baseline.cv.links import trace
from refig_harness_baseline.cv.scene import RGB, Box, Link, Rect, Scene, TextLine
from refig_harness_baseline.cv.text import find_text, text_mask

WORK_SIDE = 1600
#: Colour distance (RGB, 0-441) above which a pixel is foreground against its background.
FG_DISTANCE = 48
MAX_DEPTH = 3
#: Largest colour distance between pixels of one outline's core (antialiasing included), and
#: the least share of each side's core an outline's colour takes.
OUTLINE_SPREAD = 50
OUTLINE_SHARE = 0.15


def load(path: Path) -> tuple[np.ndarray, Image.Image]:
    """The figure over white (transparency flattened), as working array and full-size image."""
    flat = open_image(path)
    scale = min(1.0, WORK_SIDE / max(flat.size))
    work = flat if scale == 1.0 else flat.resize(
        (max(1, round(flat.width * scale)), max(1, round(flat.height * scale))),
        Image.Resampling.LANCZOS)
    return np.asarray(work, dtype=np.uint8).copy(), flat


def _sizes(img: np.ndarray) -> tuple[int, int]:
    """Minimum box side and a small-structure unit for this image size."""
    side = max(img.shape[:2])
    return max(14, round(0.012 * side)), max(2, round(0.0025 * side))


# --- boxes ----------------------------------------------------------------------------------


def _ring_width(fg: np.ndarray, x: int, y: int, w: int, h: int) -> float:
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


def _classify(area: float, w: int, h: int) -> str | None:
    """``rect`` or ``ellipse`` for a blob of ``area`` pixels in a w x h box, or None."""
    fill = area / float(w * h)
    if fill >= 0.86:
        return "rect"
    ellipse = area / (np.pi / 4 * w * h)
    if 0.75 <= fill <= 0.81 and abs(ellipse - 1) < 0.03 and 0.4 < w / h < 2.5:
        return "ellipse"
    return None


def _ellipse_blob(blob: np.ndarray) -> bool:
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


def _shape(kind: str, ink: np.ndarray, x: int, y: int, w: int, h: int) -> tuple[str, float]:
    """Geometry and roundRect adjustment (radius over the shorter side) of a found box."""
    if kind == "ellipse":
        return kind, 0.0
    radius = _corner_radius(ink, x, y, w, h)
    if radius < 3:
        return "rect", 0.0
    return "roundRect", round(float(min(0.5, radius / min(w, h))), 3)


def _one_outline(sub: np.ndarray, bg: RGB, x: int, y: int, w: int, h: int, depth: int) -> bool:
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


def _mostly_text(rect: Rect, text: np.ndarray) -> bool:
    crop = text[int(rect.y):int(rect.y1), int(rect.x):int(rect.x1)]
    return crop.size > 0 and crop.mean() > 0.5


def _candidates(img: np.ndarray, region: Rect, bg: RGB, text: np.ndarray,
                min_side: int, unit: int) -> list[Box]:
    """Boxes found directly in ``region`` against ``bg`` (outlines and filled blobs)."""
    x0, y0 = int(region.x), int(region.y)
    x1, y1 = int(region.x1), int(region.y1)
    sub = img[y0:y1, x0:x1]
    if sub.shape[0] < min_side or sub.shape[1] < min_side:
        return []
    fg = (distance(sub, bg) > FG_DISTANCE).astype(np.uint8)
    return (_holes(sub, fg, (x0, y0), bg, text, min_side, unit)
            + _solids(fg, (x0, y0), min_side, unit))


def _holes(sub: np.ndarray, fg: np.ndarray, origin: tuple[int, int], bg: RGB, text: np.ndarray,
           min_side: int, unit: int, keep_blank: bool = False) -> list[Box]:
    """Outlined boxes: the holes of the foreground ``fg`` of ``sub`` (at ``origin``).

    A large hole with nothing inside (no fill, text or box) is dropped unless ``keep_blank``:
    lines routed around an empty area enclose such holes far more often than drawn boxes do.
    """
    x0, y0 = origin
    found: list[Box] = []
    total = sub.shape[0] * sub.shape[1]
    # Text is kept: OCR boxes may overlap an outline (a border read as "I"), and erasing them
    # would open it; holes made of text are dropped below instead. Growing the ink by ``unit``
    # joins dashes, diagonal ones at rounded corners too; the holes shrink by as much, which is
    # given back. What growth glues to an outline only notches a hole, and the convex hull
    # ignores notches.
    reach = unit
    grown = cv2.dilate(fg, np.ones((2 * reach + 1, 2 * reach + 1), np.uint8))
    sealed = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    contours, hierarchy = cv2.findContours(grown, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    for contour, info in zip(contours, hierarchy[0] if hierarchy is not None else [],
                             strict=False):
        if info[3] == -1:
            continue  # an outer boundary; boxes are the holes
        x, y, w, h = cv2.boundingRect(contour)
        x, y, w, h = x - reach, y - reach, w + 2 * reach, h + 2 * reach
        if w < min_side or h < min_side or w * h > 0.98 * total:
            continue
        # A contour through pixel centres encloses (w-1) x (h-1) of a full w x h rectangle.
        hull = cv2.contourArea(cv2.convexHull(contour))
        inner_w, inner_h = w - 2 * reach, h - 2 * reach
        kind = _classify(hull + inner_w + inner_h - 1, inner_w, inner_h)
        if kind is None:
            continue
        lw = _ring_width(sealed, x, y, w, h)
        rect = Rect(x0 + x - lw / 2, y0 + y - lw / 2, w + lw, h + lw)
        if _mostly_text(rect, text) or not _one_outline(sub, bg, x, y, w, h, reach + round(lw)):
            continue
        inset = round(lw) + 2
        inside = fg[y + inset:y + h - inset, x + inset:x + w - inset]
        if not keep_blank and max(w, h) > 3 * min_side and inside.size and inside.mean() < 0.01:
            continue  # nothing inside, no fill: lines that happen to enclose a rectangle
        outer = round(lw)
        geometry, radius = _shape(kind, sealed, x - outer, y - outer, w + 2 * outer, h + 2 * outer)
        found.append(Box(rect, geometry=geometry, radius=radius, line_px=lw))
    return found


def _solids(fg: np.ndarray, origin: tuple[int, int], min_side: int, unit: int) -> list[Box]:
    """Filled boxes: what survives an opening that removes thin strokes."""
    x0, y0 = origin
    found: list[Box] = []
    total = fg.shape[0] * fg.shape[1]
    sealed = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    radius = max(2, unit + 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius + 1,) * 2)
    # Antialiasing leaves a light seam between an outline and the fill: the sealed mask has it
    # closed, so the opening keeps the outline with the body it belongs to.
    solid = cv2.morphologyEx(sealed, cv2.MORPH_OPEN, kernel)
    contours, _ = cv2.findContours(solid, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    for contour in contours:
        x, y, w, h = cv2.boundingRect(contour)
        if w < min_side or h < min_side or w * h > 0.98 * total:
            continue
        # The opening rounded every corner: judge the shape on the unopened blob.
        blob = np.zeros((h, w), np.uint8)
        cv2.drawContours(blob, [contour - (x, y)], -1, 1, thickness=cv2.FILLED)
        kind = _classify(float((sealed[y:y + h, x:x + w] | blob).sum()), w, h)
        if kind is None and _ellipse_blob(blob):
            kind = "ellipse"  # a circle that arrow heads touch: the opening left stubs of them
        if kind is None:
            continue
        geometry, radius = _shape(kind, sealed, x, y, w, h)
        found.append(Box(Rect(x0 + x, y0 + y, w, h), geometry=geometry, radius=radius,
                         line_px=0.0))
    return found


def _style(img: np.ndarray, box: Box, bg: RGB, text: np.ndarray, fg_raw: np.ndarray) -> None:
    """Fill, outline colour, width and dash of a box, from its interior and its edges.

    The outline is read from strips along the middle half of each side (corners of rounded
    boxes are page, not outline), reaching inwards from the box's outer edge.
    """
    r = box.rect
    inset = int(box.line_px) + 2
    ix0, iy0 = int(r.x) + inset, int(r.y) + inset
    ix1, iy1 = int(r.x1) - inset, int(r.y1) - inset
    interior = img[iy0:iy1, ix0:ix1]
    keep = text[iy0:iy1, ix0:ix1] == 0
    fill = mode(interior[keep]) if interior.size else None
    box.fill = None if fill is None or distance(np.array([fill]), bg)[0] < 14 else fill
    inner = box.fill or bg
    depth = max(3, round(box.line_px) + 1)
    x0, y0, x1, y1 = int(r.x), int(r.y), int(r.x1), int(r.y1)
    qx, qy = max(1, (x1 - x0) // 4), max(1, (y1 - y0) // 4)
    strips = [img[y0:y0 + depth, x0 + qx:x1 - qx], img[y1 - depth:y1, x0 + qx:x1 - qx],
              img[y0 + qy:y1 - qy, x0:x0 + depth], img[y0 + qy:y1 - qy, x1 - depth:x1]]
    pixels = np.concatenate([strip.reshape(-1, 3) for strip in strips])
    if len(pixels) == 0:
        return
    inked = pixels[(distance(pixels, inner) > 30) & (distance(pixels, bg) > 30)]
    share = len(inked) / len(pixels)
    if share < 0.12:
        box.line, box.line_px = None, 0.0
        return
    box.line = mode(inked)
    if box.line_px == 0.0:  # a filled box: the outline is the inked share of the strip
        box.line_px = float(np.clip(share * depth, 1.0, 6.0))
        return
    center = np.zeros(img.shape[:2], dtype=np.uint8)
    band = max(1, round(box.line_px))
    if box.geometry == "ellipse":  # the whole centre line: an ellipse has no corners to skip
        cv2.ellipse(center, ((r.center[0], r.center[1]), (r.w - band, r.h - band), 0), 1, 1)
        on = fg_raw[center == 1]
        box.dashed = bool(len(on) and on.mean() < 0.8)
        return
    cv2.rectangle(center, (x0 + band // 2, y0 + band // 2), (x1 - band // 2, y1 - band // 2), 1, 1)
    corners = np.zeros_like(center)
    corners[y0 + qy:y1 - qy, :] = 1
    corners[:, x0 + qx:x1 - qx] = 1
    on = fg_raw[(center == 1) & (corners == 1)]
    box.dashed = bool(len(on) and on.mean() < 0.8)


def _circles(img: np.ndarray, bg: RGB, text: np.ndarray, min_side: int) -> list[Box]:
    """Small circles (operators such as + or ×, round nodes), whatever touches or fills them.

    A glyph inside a circle and the arrow heads landing on it close up the hole a circle
    would leave, so circles are found by the Hough transform (OpenCV) and kept when ink
    follows nearly all of their circumference.
    """
    gray = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)
    found = cv2.HoughCircles(gray, cv2.HOUGH_GRADIENT_ALT, dp=1.5, minDist=min_side,
                             param1=100, param2=0.8, minRadius=min_side // 2,
                             maxRadius=3 * min_side)
    if found is None:
        return []
    fg = distance(img, bg) > FG_DISTANCE
    height, width = fg.shape
    angles = np.linspace(0, 2 * np.pi, 72, endpoint=False)
    circles: list[Box] = []
    for cx, cy, radius in found[0]:
        radial = np.arange(-4, 5)
        xs = np.clip(np.round(cx + np.outer(np.cos(angles), radius + radial)), 0, width - 1)
        ys = np.clip(np.round(cy + np.outer(np.sin(angles), radius + radial)), 0, height - 1)
        ring = fg[ys.astype(int), xs.astype(int)]
        if ring[:, 2:7].any(axis=1).mean() < 0.9:
            continue  # an arc (a rounded corner, a bracket), not a circle
        line = float(np.clip(np.median(ring.sum(axis=1)), 1, 6))
        rim = [radial[np.flatnonzero(row)[-1]] for row in ring if row.any()]
        outer = radius + float(np.median(rim)) + 0.5
        rect = Rect(cx - outer, cy - outer, 2 * outer, 2 * outer)
        if not _mostly_text(rect, text):
            circles.append(Box(rect, geometry="ellipse", line_px=line))
    return circles


def _crosses(outline: Rect, other: Rect) -> bool:
    """True when ``other`` lies partly inside ``outline`` and partly outside it."""
    ix = max(0.0, min(outline.x1, other.x1) - max(outline.x, other.x))
    iy = max(0.0, min(outline.y1, other.y1) - max(outline.y, other.y))
    share = ix * iy / other.area if other.area else 0.0
    return 0.15 < share < 0.85


def _uncrossed(candidates: list[Box], texts: list[TextLine]) -> list[Box]:
    """Candidates no smaller kept box or text line crosses, smallest first.

    Connectors routed between boxes enclose holes that look like rectangles; their outline
    runs through the boxes and labels it joins, which a drawn box's outline never does.
    """
    kept: list[Box] = []
    for box in sorted(candidates, key=lambda b: b.rect.area):
        others = [k.rect for k in kept] + [t.rect for t in texts]
        if not any(_crosses(box.rect, o) for o in others if o.area < box.rect.area):
            kept.append(box)
    return kept


def find_boxes(img: np.ndarray, bg: RGB, texts: list[TextLine]) -> list[Box]:
    """Boxes and regions at every nesting depth, largest first."""
    min_side, unit = _sizes(img)
    text = text_mask(img.shape[:2], texts)
    boxes: list[Box] = []
    queue: list[tuple[Rect, RGB, int]] = [(Rect(0, 0, img.shape[1], img.shape[0]), bg, 0)]
    while queue:
        region, local_bg, depth = queue.pop(0)
        fg_raw = np.zeros(img.shape[:2], dtype=np.uint8)
        ry0, ry1, rx0, rx1 = int(region.y), int(region.y1), int(region.x), int(region.x1)
        fg_raw[ry0:ry1, rx0:rx1] = distance(img[ry0:ry1, rx0:rx1], local_bg) > FG_DISTANCE
        found = _candidates(img, region, local_bg, text, min_side, unit)
        if depth == 0:
            found += [c for c in _circles(img, bg, text, min_side)
                      if not any(c.rect.iou(other.rect) > 0.5 for other in found)]
        found = _uncrossed(found, texts)
        for box in sorted(found, key=lambda b: -b.rect.area):
            if any(box.rect.iou(other.rect) > 0.75 or (
                    other.rect.contains(box.rect, 2) and box.rect.area > 0.6 * other.rect.area)
                   for other in boxes):
                continue  # the same box again (its fill seen as a hole, or found at two depths)
            _style(img, box, local_bg, text, fg_raw)
            boxes.append(box)
            inset = box.line_px + unit
            inner = Rect(box.rect.x + inset, box.rect.y + inset,
                         box.rect.w - 2 * inset, box.rect.h - 2 * inset)
            if depth + 1 < MAX_DEPTH and inner.w > 2 * min_side and inner.h > 2 * min_side:
                queue.append((inner, box.fill or local_bg, depth + 1))
    return _nest(boxes)


def _nest(boxes: list[Box]) -> list[Box]:
    """Boxes largest first, each knowing how many boxes it holds."""
    boxes = sorted(boxes, key=lambda b: -b.rect.area)
    for i, box in enumerate(boxes):
        box.children = int(sum(box.rect.contains(o.rect, 2) for o in boxes[i + 1:]))
    return boxes


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
    min_side, _ = _sizes(img)
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


# --- links ----------------------------------------------------------------------------------


def _local_foreground(img: np.ndarray, bg: RGB, boxes: list[Box]) -> np.ndarray:
    fg = (distance(img, bg) > FG_DISTANCE).astype(np.uint8)
    for box in boxes:  # largest first, so inner boxes override their parents
        if box.fill is None:
            continue
        r = box.rect
        y0, y1, x0, x1 = int(r.y), int(r.y1), int(r.x), int(r.x1)
        fg[y0:y1, x0:x1] = distance(img[y0:y1, x0:x1], box.fill) > FG_DISTANCE
    return fg


def _binding(targets: list[Rect], point: tuple[float, float], reach: float,
             exclude: int | None = None) -> tuple[int | None, str | None]:
    """The nearest shape whose outline is within ``reach`` of ``point``, and the side hit."""
    best: tuple[float, float, int, str] | None = None
    for index, rect in enumerate(targets):
        if index == exclude:
            continue
        distance, side = rect.edge_distance(*point)
        if distance <= reach and (best is None or (distance, rect.area) < best[:2]):
            best = (distance, rect.area, index, side)
    return (best[2], best[3]) if best else (None, None)


def _blends(img: np.ndarray, color: RGB, bg: RGB, tolerance: float = 40.0) -> np.ndarray:
    """Pixels that are ``color`` laid over ``bg``, antialiased or whole (1), others (0)."""
    ink = np.asarray(color, dtype=np.float32)
    paper = np.asarray(bg, dtype=np.float32)
    axis = ink - paper
    share = np.clip(((img.astype(np.float32) - paper) @ axis) / max(1.0, float(axis @ axis)),
                    0, 1)
    nearest = paper + share[..., None] * axis
    return (np.linalg.norm(img - nearest, axis=-1) < tolerance).astype(np.uint8)


def _large(rect: Rect, shape: tuple[int, int]) -> bool:
    """A box large enough to be a region (a panel) rather than a node: 2% of the figure."""
    return rect.area >= 0.02 * shape[0] * shape[1]


def _erase_mask(img: np.ndarray, bg: RGB, boxes: list[Box], texts: list[TextLine]
                ) -> np.ndarray:
    """Pixels that are not links: text, box outlines (corners included), small boxes' insides.

    Along a large box's outline only the outline's own colour goes: links crossing a region's
    border, and heads landing on it, stay whole when they are drawn in another colour.
    """
    height, width = img.shape[:2]
    erase = text_mask((height, width), texts, pad=1)
    for box in boxes:
        r = box.rect
        x0, y0, x1, y1 = int(r.x), int(r.y), int(np.ceil(r.x1)), int(np.ceil(r.y1))
        if box.children == 0 and not _large(r, (height, width)):
            if box.geometry == "ellipse":  # its bounding box would cut arrow heads short
                grow = 2 * max(1, round(box.line_px))  # its antialiased rim too
                cv2.ellipse(erase, ((r.center[0], r.center[1]), (r.w + grow, r.h + grow), 0), 1,
                            cv2.FILLED)
            else:
                erase[max(0, y0 - 1):y1 + 1, max(0, x0 - 1):x1 + 1] = 1
            continue
        band = 2 * int(np.ceil(box.line_px)) + 4
        # The outline band, drawn in a crop around the box (offset ox, oy).
        ox, oy = max(0, x0 - band), max(0, y0 - band)
        crop = img[oy:y1 + band + 1, ox:x1 + band + 1]
        outline = np.zeros(crop.shape[:2], np.uint8)
        cv2.rectangle(outline, (x0 - ox, y0 - oy), (x1 - ox, y1 - oy), 1, band)
        corner = int(np.ceil(box.radius * min(r.w, r.h))) + band
        if box.geometry != "rect":
            for cx, cy in ((x0, y0), (x1 - corner, y0), (x0, y1 - corner),
                           (x1 - corner, y1 - corner)):
                outline[max(0, cy - oy):cy - oy + corner, max(0, cx - ox):cx - ox + corner] = 1
        if box.line is not None:
            outline &= _blends(crop, box.line, bg)
        erase[oy:oy + crop.shape[0], ox:ox + crop.shape[1]] |= outline
    return erase


def _residual(img: np.ndarray, bg: RGB, boxes: list[Box], texts: list[TextLine]) -> np.ndarray:
    """The ink that is neither text nor a box: links, and outlines of regions not yet found."""
    return _local_foreground(img, bg, boxes) & (1 - _erase_mask(img, bg, boxes, texts))


def find_regions(img: np.ndarray, bg: RGB, boxes: list[Box], texts: list[TextLine]
                 ) -> list[Box]:
    """Outlined regions that links cross (a dashed group), as holes of what boxes leave.

    Links crossing a region's outline split its hole among the boxes inside; once the boxes
    are erased they only notch it.
    """
    min_side, unit = _sizes(img)
    text = text_mask(img.shape[:2], texts)
    residual = _residual(img, bg, boxes, texts)
    found = _uncrossed(_holes(img, residual, (0, 0), bg, text, min_side, unit, keep_blank=True),
                       texts)
    regions: list[Box] = []
    for region in sorted(found, key=lambda b: -b.rect.area):
        if any(region.rect.iou(other.rect) > 0.75 for other in boxes + regions):
            continue
        if not any(region.rect.contains(b.rect, 2) for b in boxes):
            continue  # a region holds boxes; an empty hole is a loop of lines
        _style(img, region, bg, text, residual)
        regions.append(region)
    return regions


def find_links(img: np.ndarray, bg: RGB, boxes: list[Box], texts: list[TextLine]
               ) -> list[Link]:
    """Lines and arrows, not yet bound."""
    min_side, unit = _sizes(img)
    return trace(_residual(img, bg, boxes, texts), img, unit, min_side)


def bind(links: list[Link], targets: list[Rect], regions: list[int], unit: int) -> list[Link]:
    """Bind each link end to the nearest shape outline within reach.

    An arrow head that reaches no outline but lies in a region (one of ``regions``: boxes that
    hold boxes or are large, such as panels) near its border binds to that region.
    """
    reach = max(10.0, 3.5 * unit + 4)
    kept = []
    for link in links:
        link.start_target, link.start_site = _binding(targets, link.start, reach)
        link.end_target, link.end_site = _binding(targets, link.end, reach)
        if link.start_target is not None and link.start_target == link.end_target:
            if not (link.head_start or link.head_end):
                continue  # a stroke inside or along one shape (a glyph's detail), not a link
            link.end_target, link.end_site = _binding(targets, link.end, reach,
                                                      exclude=link.start_target)
        if link.head_start and link.start_target is None:
            link.start_target, link.start_site = _binding(
                [targets[i] for i in regions], link.start, 4 * reach)
            link.start_target = None if link.start_target is None else regions[link.start_target]
        if link.head_end and link.end_target is None:
            link.end_target, link.end_site = _binding(
                [targets[i] for i in regions], link.end, 4 * reach)
            link.end_target = None if link.end_target is None else regions[link.end_target]
        kept.append(link)
    return kept


def analyse(path: Path) -> Scene:
    """The whole reading of one figure."""
    img, flat = load(path)
    bg = background(img)
    texts = find_text(flat, img, bg)
    boxes = find_boxes(img, bg, texts)
    boxes = _nest(boxes + find_regions(img, bg, boxes, texts))
    labels = read_operators(img, bg, boxes, assign_text(boxes, texts))
    links = find_links(img, bg, boxes, texts)
    targets = [b.rect for b in boxes] + [t.rect for t in labels]
    regions = [i for i, b in enumerate(boxes) if b.children or _large(b.rect, img.shape[:2])]
    links = bind(links, targets, regions, _sizes(img)[1])
    return Scene(img.shape[1], img.shape[0], bg, boxes, labels, links)


def summary(scene: Scene) -> dict[str, int]:
    """Counts for the transcript."""
    geometry = Counter(b.geometry for b in scene.boxes)
    return {
        "boxes": len(scene.boxes), **{f"boxes_{k}": v for k, v in geometry.items()},
        "texts_in_boxes": sum(len(b.texts) for b in scene.boxes),
        "text_boxes": len(scene.labels), "links": len(scene.links),
        "arrows": sum(link.head_start or link.head_end for link in scene.links),
        "bound_ends": sum((link.start_target is not None) + (link.end_target is not None)
                          for link in scene.links),
    }
