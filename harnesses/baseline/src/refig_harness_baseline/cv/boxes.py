"""Boxes and regions of a figure: outlined holes of the foreground, filled blobs, small circles,
searched again inside each box against its fill, then nested."""

from __future__ import annotations

import cv2
import numpy as np

from refig_harness_baseline.cv.colours import distance, mode
from refig_harness_baseline.cv.outlines import (
    classify,
    ellipse_blob,
    one_outline,
    ring_width,
    shape,
)
from refig_harness_baseline.cv.scene import RGB, Box, Rect, TextLine
from refig_harness_baseline.cv.text import text_mask
from refig_harness_baseline.cv.units import FG_DISTANCE, sizes

MAX_DEPTH = 3
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
    return (holes(sub, fg, (x0, y0), bg, text, min_side, unit)
            + _solids(fg, (x0, y0), min_side, unit))


def holes(sub: np.ndarray, fg: np.ndarray, origin: tuple[int, int], bg: RGB, text: np.ndarray,
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
        kind = classify(hull + inner_w + inner_h - 1, inner_w, inner_h)
        if kind is None:
            continue
        lw = ring_width(sealed, x, y, w, h)
        rect = Rect(x0 + x - lw / 2, y0 + y - lw / 2, w + lw, h + lw)
        if _mostly_text(rect, text) or not one_outline(sub, bg, x, y, w, h, reach + round(lw)):
            continue
        inset = round(lw) + 2
        inside = fg[y + inset:y + h - inset, x + inset:x + w - inset]
        if not keep_blank and max(w, h) > 3 * min_side and inside.size and inside.mean() < 0.01:
            continue  # nothing inside, no fill: lines that happen to enclose a rectangle
        outer = round(lw)
        geometry, radius = shape(kind, sealed, x - outer, y - outer, w + 2 * outer, h + 2 * outer)
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
        kind = classify(float((sealed[y:y + h, x:x + w] | blob).sum()), w, h)
        if kind is None and ellipse_blob(blob):
            kind = "ellipse"  # a circle that arrow heads touch: the opening left stubs of them
        if kind is None:
            continue
        geometry, radius = shape(kind, sealed, x, y, w, h)
        found.append(Box(Rect(x0 + x, y0 + y, w, h), geometry=geometry, radius=radius,
                         line_px=0.0))
    return found


def style(img: np.ndarray, box: Box, bg: RGB, text: np.ndarray, fg_raw: np.ndarray) -> None:
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


def uncrossed(candidates: list[Box], texts: list[TextLine]) -> list[Box]:
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
    min_side, unit = sizes(img)
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
        found = uncrossed(found, texts)
        for box in sorted(found, key=lambda b: -b.rect.area):
            if any(box.rect.iou(other.rect) > 0.75 or (
                    other.rect.contains(box.rect, 2) and box.rect.area > 0.6 * other.rect.area)
                   for other in boxes):
                continue  # the same box again (its fill seen as a hole, or found at two depths)
            style(img, box, local_bg, text, fg_raw)
            boxes.append(box)
            inset = box.line_px + unit
            inner = Rect(box.rect.x + inset, box.rect.y + inset,
                         box.rect.w - 2 * inset, box.rect.h - 2 * inset)
            if depth + 1 < MAX_DEPTH and inner.w > 2 * min_side and inner.h > 2 * min_side:
                queue.append((inner, box.fill or local_bg, depth + 1))
    return nest(boxes)


def nest(boxes: list[Box]) -> list[Box]:
    """Boxes largest first, each knowing how many boxes it holds."""
    boxes = sorted(boxes, key=lambda b: -b.rect.area)
    for i, box in enumerate(boxes):
        box.children = int(sum(box.rect.contains(o.rect, 2) for o in boxes[i + 1:]))
    return boxes
