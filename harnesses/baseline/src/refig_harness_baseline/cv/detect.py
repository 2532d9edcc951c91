"""Classical-vision reading of a figure: text (OCR), boxes and regions, lines and arrows.

Everything works on a copy scaled to at most ``WORK_SIDE`` pixels, against the local background
(the page, or the fill of the box a pixel lies in):

- text: ``refig.ocr.read_text`` lines, with their colour and size;
- boxes: closed outlines are the holes of the foreground once text is erased (rounded and dashed
  outlines included, after a small closing); filled boxes are what survives an opening that
  removes thin strokes; each box is searched again for boxes inside it, against its fill;
- links: what remains after erasing text, box outlines and small boxes' contents, joined across
  dash gaps, skeletonised; ends are skeleton end points, arrow heads the blobs an opening keeps
  near an end; each end is bound to the nearest shape outline within reach.
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageFont
from refig.images import open_image
from refig.ocr import read_text
from skimage.morphology import skeletonize

from refig_harness_baseline.cv.scene import RGB, Box, Link, Rect, Scene, TextLine

WORK_SIDE = 1600
#: Colour distance (RGB, 0-441) above which a pixel is foreground against its background.
FG_DISTANCE = 48
MAX_DEPTH = 3


def load(path: Path) -> tuple[np.ndarray, Image.Image]:
    """The figure over white (transparency flattened), as working array and full-size image."""
    flat = open_image(path)
    scale = min(1.0, WORK_SIDE / max(flat.size))
    work = flat if scale == 1.0 else flat.resize(
        (max(1, round(flat.width * scale)), max(1, round(flat.height * scale))),
        Image.Resampling.LANCZOS)
    return np.asarray(work, dtype=np.uint8).copy(), flat


def _mode(pixels: np.ndarray, step: int = 16) -> RGB | None:
    """The most frequent colour of ``pixels`` (N x 3), refined to the mean of its bin."""
    if len(pixels) == 0:
        return None
    quant = (pixels // step).astype(np.int32)
    keys = quant[:, 0] * 4096 + quant[:, 1] * 64 + quant[:, 2]
    values, counts = np.unique(keys, return_counts=True)
    top = values[np.argmax(counts)]
    mean = pixels[keys == top].mean(axis=0)
    return int(mean[0]), int(mean[1]), int(mean[2])


def _distance(pixels: np.ndarray, color: RGB) -> np.ndarray:
    diff = pixels.astype(np.int32) - np.asarray(color, dtype=np.int32)
    return np.sqrt((diff * diff).sum(axis=-1))


def background(img: np.ndarray) -> RGB:
    """The page colour: the commonest colour of the outermost pixels."""
    border = np.concatenate([img[0], img[-1], img[:, 0], img[:, -1]])
    return _mode(border) or (255, 255, 255)


def _sizes(img: np.ndarray) -> tuple[int, int]:
    """Minimum box side and a small-structure unit for this image size."""
    side = max(img.shape[:2])
    return max(14, round(0.012 * side)), max(2, round(0.0025 * side))


# --- text -----------------------------------------------------------------------------------

#: LibreOffice renders the slide's default font (Calibri) with the metric-compatible Carlito.
_FONT_FILES = ("Carlito-Regular.ttf", "Carlito-Regular.otf")
_FONT_DIRS = (Path("/usr/share/fonts"), Path("/usr/local/share/fonts"))
#: An OCR line box is 0.8 (no descenders) to 1.1 (descenders) of the font size.
LINE_BOX_PER_EM = 0.95


@functools.cache
def _measure_font() -> ImageFont.FreeTypeFont | None:
    for folder in _FONT_DIRS:
        for name in _FONT_FILES:
            found = next(folder.rglob(name), None) if folder.is_dir() else None
            if found is not None:
                return ImageFont.truetype(str(found), 100)
    return None


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
        local = _mode(crop.reshape(-1, 3)) or bg
        inked = _distance(crop, local) > 80
        pixels = crop[inked]
        color = tuple(int(c) for c in np.median(pixels, axis=0)) if len(pixels) else (0, 0, 0)
        text = restore_spaces(line.text, inked)
        lines.append(TextLine(text, rect, color,  # type: ignore[arg-type]
                              size_px=font_size(text, rect)))
    return lines


def _text_mask(shape: tuple[int, int], texts: list[TextLine], pad: int = 0) -> np.ndarray:
    """OCR line boxes, grown by ``pad`` pixels."""
    mask = np.zeros(shape, dtype=np.uint8)
    for t in texts:
        r = t.rect
        mask[max(0, int(r.y) - pad):int(np.ceil(r.y1)) + pad,
             max(0, int(r.x) - pad):int(np.ceil(r.x1)) + pad] = 1
    return mask


# --- boxes ----------------------------------------------------------------------------------


def _ring_width(fg: np.ndarray, x: int, y: int, w: int, h: int) -> float:
    """Outline thickness of a hole at (x, y, w, h): foreground run outwards at mid-sides."""
    height, width = fg.shape
    runs: list[int] = []
    for dx, dy, px, py in ((0, -1, x + w // 2, y - 1), (0, 1, x + w // 2, y + h),
                           (-1, 0, x - 1, y + h // 2), (1, 0, x + w, y + h // 2)):
        n = 0
        while 0 <= px < width and 0 <= py < height and fg[py, px] and n < 20:
            n += 1
            px, py = px + dx, py + dy
        runs.append(n)
    return float(np.clip(np.median(runs), 1, 12))


def _bridge(mask: np.ndarray, unit: int) -> np.ndarray:
    """Join dashes: close gaps along rows and along columns (not across, so text stays apart)."""
    gap = 2 * unit + 3
    return (cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((1, gap), np.uint8))
            | cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((gap, 1), np.uint8)))


def _classify(area: float, w: int, h: int) -> str | None:
    """``rect`` or ``ellipse`` for a blob of ``area`` pixels in a w x h box, or None."""
    fill = area / float(w * h)
    if fill >= 0.86:
        return "rect"
    ellipse = area / (np.pi / 4 * w * h)
    if 0.75 <= fill <= 0.81 and abs(ellipse - 1) < 0.03 and 0.4 < w / h < 2.5:
        return "ellipse"
    return None


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
    fg = (_distance(sub, bg) > FG_DISTANCE).astype(np.uint8)
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
        if _mostly_text(rect, text):
            continue
        outer = round(lw)
        geometry, radius = _shape(kind, sealed, x - outer, y - outer, w + 2 * outer, h + 2 * outer)
        found.append(Box(rect, geometry=geometry, radius=radius, line_px=lw))
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
    fill = _mode(interior[keep]) if interior.size else None
    box.fill = None if fill is None or _distance(np.array([fill]), bg)[0] < 14 else fill
    inner = box.fill or bg
    depth = max(3, round(box.line_px) + 1)
    x0, y0, x1, y1 = int(r.x), int(r.y), int(r.x1), int(r.y1)
    qx, qy = max(1, (x1 - x0) // 4), max(1, (y1 - y0) // 4)
    strips = [img[y0:y0 + depth, x0 + qx:x1 - qx], img[y1 - depth:y1, x0 + qx:x1 - qx],
              img[y0 + qy:y1 - qy, x0:x0 + depth], img[y0 + qy:y1 - qy, x1 - depth:x1]]
    pixels = np.concatenate([strip.reshape(-1, 3) for strip in strips])
    if len(pixels) == 0:
        return
    inked = pixels[(_distance(pixels, inner) > 30) & (_distance(pixels, bg) > 30)]
    share = len(inked) / len(pixels)
    if share < 0.12:
        box.line, box.line_px = None, 0.0
        return
    box.line = _mode(inked)
    if box.line_px == 0.0:  # a filled box: the outline is the inked share of the strip
        box.line_px = float(np.clip(share * depth, 1.0, 6.0))
        return
    center = np.zeros(img.shape[:2], dtype=np.uint8)
    band = max(1, round(box.line_px))
    cv2.rectangle(center, (x0 + band // 2, y0 + band // 2), (x1 - band // 2, y1 - band // 2), 1, 1)
    corners = np.zeros_like(center)
    corners[y0 + qy:y1 - qy, :] = 1
    corners[:, x0 + qx:x1 - qx] = 1
    on = fg_raw[(center == 1) & (corners == 1)]
    box.dashed = bool(len(on) and on.mean() < 0.8)


def find_boxes(img: np.ndarray, bg: RGB, texts: list[TextLine]) -> list[Box]:
    """Boxes and regions at every nesting depth, largest first."""
    min_side, unit = _sizes(img)
    text = _text_mask(img.shape[:2], texts)
    boxes: list[Box] = []
    queue: list[tuple[Rect, RGB, int]] = [(Rect(0, 0, img.shape[1], img.shape[0]), bg, 0)]
    while queue:
        region, local_bg, depth = queue.pop(0)
        fg_raw = np.zeros(img.shape[:2], dtype=np.uint8)
        ry0, ry1, rx0, rx1 = int(region.y), int(region.y1), int(region.x), int(region.x1)
        fg_raw[ry0:ry1, rx0:rx1] = _distance(img[ry0:ry1, rx0:rx1], local_bg) > FG_DISTANCE
        for box in sorted(_candidates(img, region, local_bg, text, min_side, unit),
                          key=lambda b: -b.rect.area):
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
    boxes.sort(key=lambda b: -b.rect.area)
    for i, box in enumerate(boxes):
        box.children = sum(box.rect.contains(o.rect, 2) for o in boxes[i + 1:])
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
    fg = (_distance(img, bg) > FG_DISTANCE).astype(np.uint8)
    for box in boxes:  # largest first, so inner boxes override their parents
        if box.fill is None:
            continue
        r = box.rect
        y0, y1, x0, x1 = int(r.y), int(r.y1), int(r.x), int(r.x1)
        fg[y0:y1, x0:x1] = _distance(img[y0:y1, x0:x1], box.fill) > FG_DISTANCE
    return fg


def _neighbours(skeleton: np.ndarray) -> np.ndarray:
    kernel = np.ones((3, 3), np.float32)
    kernel[1, 1] = 0
    return cv2.filter2D(skeleton.astype(np.float32), -1, kernel, borderType=cv2.BORDER_CONSTANT)


def _clusters(points: np.ndarray, radius: float) -> list[np.ndarray]:
    """Group points closer than ``radius`` (single linkage, small inputs)."""
    groups: list[list[int]] = []
    for i, p in enumerate(points):
        joined = [g for g in groups if any(np.hypot(*(points[j] - p)) <= radius for j in g)]
        merged = [i] + [j for g in joined for j in g]
        groups = [g for g in groups if g not in joined] + [merged]
    return [points[g] for g in groups]


def _binding(targets: list[Rect | None], point: tuple[float, float], reach: float,
             exclude: int | None = None) -> tuple[int | None, str | None]:
    """The nearest shape whose outline is within ``reach`` of ``point``, and the side hit."""
    best: tuple[float, float, int, str] | None = None
    for index, rect in enumerate(targets):
        if rect is None or index == exclude:
            continue
        distance, side = rect.edge_distance(*point)
        if distance <= reach and (best is None or (distance, rect.area) < best[:2]):
            best = (distance, rect.area, index, side)
    return (best[2], best[3]) if best else (None, None)


def _erase_mask(shape: tuple[int, int], boxes: list[Box], texts: list[TextLine]) -> np.ndarray:
    """Pixels that are not links: text, box outlines (corners included), small boxes' insides."""
    height, width = shape
    erase = _text_mask(shape, texts, pad=1)
    for box in boxes:
        r = box.rect
        x0, y0, x1, y1 = int(r.x), int(r.y), int(np.ceil(r.x1)), int(np.ceil(r.y1))
        if box.children == 0 and r.area < 0.02 * width * height:
            erase[max(0, y0 - 1):y1 + 1, max(0, x0 - 1):x1 + 1] = 1
            continue
        band = 2 * int(np.ceil(box.line_px)) + 4
        cv2.rectangle(erase, (x0, y0), (x1, y1), 1, band)
        corner = int(np.ceil(box.radius * min(r.w, r.h))) + band
        if box.geometry != "rect":
            for cx, cy in ((x0, y0), (x1 - corner, y0), (x0, y1 - corner),
                           (x1 - corner, y1 - corner)):
                erase[max(0, cy):cy + corner, max(0, cx):cx + corner] = 1
    return erase


def _has_head(part: np.ndarray, point: np.ndarray, thickness: float) -> bool:
    """An end carries an arrow head when the ink around it is much more than a line's end.

    Within radius R of a plain line end lies about R x thickness of ink; a triangular head
    adds about as much again, whatever its exact size.
    """
    reach = max(6.0, 2.5 * thickness)
    ys, xs = np.ogrid[:part.shape[0], :part.shape[1]]
    disk = (xs - point[0]) ** 2 + (ys - point[1]) ** 2 <= reach * reach
    return float(part[disk].sum()) > 1.7 * reach * max(1.0, thickness)


def find_links(img: np.ndarray, bg: RGB, boxes: list[Box], texts: list[TextLine],
               targets: list[Rect | None]) -> list[Link]:
    """Lines and arrows, their heads, dash and colour, bound to ``targets`` where they touch
    (None marks a shape that takes no connector)."""
    min_side, unit = _sizes(img)
    residual = _local_foreground(img, bg, boxes) & (1 - _erase_mask(img.shape[:2], boxes, texts))
    joined = _bridge(residual, unit)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(joined, connectivity=8)
    reach = max(10.0, 3.5 * unit + 4)
    links: list[Link] = []
    for label in range(1, count):
        x, y, w, h, area = stats[label]
        if max(w, h) < min_side or area < min_side:
            continue
        part = (labels[y:y + h, x:x + w] == label).astype(np.uint8)
        skeleton = skeletonize(part.astype(bool))
        length = int(skeleton.sum())
        if length < min_side:
            continue
        # Pad with background: a component filling its whole box has no zero to measure from.
        padded = cv2.copyMakeBorder(part, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
        distance = cv2.distanceTransform(padded, cv2.DIST_L2, 3)[1:-1, 1:-1]
        thickness = 2 * float(np.median(distance[skeleton]))
        if area / length > max(8.0, 4 * unit) or thickness > 6 * unit:
            continue  # a blob (icon, photo, glyph mass), not a line
        degree = _neighbours(skeleton) * skeleton
        if int((skeleton & (degree >= 3)).sum()) > 24:
            continue  # a drawing, not a connector
        ends = np.argwhere(skeleton & (degree == 1))[:, ::-1].astype(float)
        clusters = _clusters(ends, 3 * thickness + 6) if len(ends) else []
        if len(clusters) < 2:
            continue
        # The end of each cluster farthest from the component's middle: the tip of a head.
        middle = np.argwhere(skeleton)[:, ::-1].mean(axis=0)
        points = [c[np.argmax(np.hypot(*(c - middle).T))] for c in clusters]
        headed = [_has_head(part, p, thickness) for p in points]
        on = residual[y:y + h, x:x + w][skeleton]
        ink = img[y:y + h, x:x + w][(residual[y:y + h, x:x + w] == 1) & (part == 1)]
        color = tuple(int(c) for c in np.median(ink, axis=0)) if len(ink) else (0, 0, 0)
        skel_points = np.argwhere(skeleton)[:, ::-1].astype(float)
        for a, b in _pairs(points, headed):
            start = (float(points[a][0] + x), float(points[a][1] + y))
            end = (float(points[b][0] + x), float(points[b][1] + y))
            if np.hypot(end[0] - start[0], end[1] - start[1]) < min_side:
                continue
            link = Link(start, end, head_start=headed[a], head_end=headed[b],
                        color=color,  # type: ignore[arg-type]
                        width_px=max(1.0, thickness), dashed=bool(on.mean() < 0.75))
            link.elbow = _deviation(skel_points, points[a], points[b]) > max(8.0, 4 * thickness)
            link.start_target, link.start_site = _binding(targets, start, reach)
            link.end_target, link.end_site = _binding(targets, end, reach,
                                                      exclude=link.start_target)
            links.append(link)
    return links


def _pairs(points: list[np.ndarray], headed: list[bool]) -> list[tuple[int, int]]:
    """Which ends to join: tail to head; fan-outs from one tail; else the farthest pair."""
    tails = [i for i, h in enumerate(headed) if not h]
    heads = [i for i, h in enumerate(headed) if h]
    if len(points) == 2:
        return [(1, 0)] if headed[0] and not headed[1] else [(0, 1)]
    if len(tails) == 1 and heads:
        return [(tails[0], h) for h in heads]
    if len(heads) == 1 and tails:
        return [(t, heads[0]) for t in tails]
    far = max(((i, j) for i in range(len(points)) for j in range(i + 1, len(points))),
              key=lambda ij: np.hypot(*(points[ij[0]] - points[ij[1]])))
    return [far]


def _deviation(points: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """Largest distance of ``points`` from the segment a-b."""
    ab = b - a
    norm = float(np.hypot(*ab))
    if norm == 0:
        return 0.0
    t = np.clip(((points - a) @ ab) / (norm * norm), 0, 1)
    nearest = a + t[:, None] * ab
    return float(np.max(np.hypot(*(points - nearest).T)))


def analyse(path: Path) -> Scene:
    """The whole reading of one figure."""
    img, flat = load(path)
    bg = background(img)
    texts = find_text(flat, img, bg)
    boxes = find_boxes(img, bg, texts)
    labels = assign_text(boxes, texts)
    # Ellipses number their connection sites differently from python-pptx's rectangle sites.
    targets = [b.rect if b.geometry != "ellipse" else None for b in boxes]
    links = find_links(img, bg, boxes, texts, [*targets, *(t.rect for t in labels)])
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
