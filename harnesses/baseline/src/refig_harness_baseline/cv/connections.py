"""What remains once text and boxes are erased: regions whose outlines links cross, the links
themselves (traced by :mod:`.links`), and the binding of their ends to shapes."""

from __future__ import annotations

import cv2
import numpy as np

from refig_harness_baseline.cv.boxes import holes, style, uncrossed
from refig_harness_baseline.cv.colours import distance
from refig_harness_baseline.cv.links import trace
from refig_harness_baseline.cv.scene import RGB, Box, Link, Rect, TextLine
from refig_harness_baseline.cv.text import text_mask
from refig_harness_baseline.cv.units import FG_DISTANCE, sizes


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


def large(rect: Rect, shape: tuple[int, int]) -> bool:
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
        if box.children == 0 and not large(r, (height, width)):
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
    min_side, unit = sizes(img)
    text = text_mask(img.shape[:2], texts)
    residual = _residual(img, bg, boxes, texts)
    found = uncrossed(holes(img, residual, (0, 0), bg, text, min_side, unit, keep_blank=True),
                       texts)
    regions: list[Box] = []
    for region in sorted(found, key=lambda b: -b.rect.area):
        if any(region.rect.iou(other.rect) > 0.75 for other in boxes + regions):
            continue
        if not any(region.rect.contains(b.rect, 2) for b in boxes):
            continue  # a region holds boxes; an empty hole is a loop of lines
        style(img, region, bg, text, residual)
        regions.append(region)
    return regions


def find_links(img: np.ndarray, bg: RGB, boxes: list[Box], texts: list[TextLine]
               ) -> list[Link]:
    """Lines and arrows, not yet bound."""
    min_side, unit = sizes(img)
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
