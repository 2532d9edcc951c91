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

from collections import Counter
from pathlib import Path

import numpy as np
from PIL import Image
from refig_toolkit_imaging import open_image

from refig_harness_baseline.cv.boxes import find_boxes, nest
from refig_harness_baseline.cv.colours import background
from refig_harness_baseline.cv.connections import bind, find_links, find_regions, large
from refig_harness_baseline.cv.labels import assign_text, read_operators
from refig_harness_baseline.cv.scene import Scene
from refig_harness_baseline.cv.text import find_text
from refig_harness_baseline.cv.units import sizes

WORK_SIDE = 1600
def load(path: Path) -> tuple[np.ndarray, Image.Image]:
    """The figure over white (transparency flattened), as working array and full-size image."""
    flat = open_image(path)
    scale = min(1.0, WORK_SIDE / max(flat.size))
    work = flat if scale == 1.0 else flat.resize(
        (max(1, round(flat.width * scale)), max(1, round(flat.height * scale))),
        Image.Resampling.LANCZOS)
    return np.asarray(work, dtype=np.uint8).copy(), flat


def analyse(path: Path) -> Scene:
    """The whole reading of one figure."""
    img, flat = load(path)
    bg = background(img)
    texts = find_text(flat, img, bg)
    boxes = find_boxes(img, bg, texts)
    boxes = nest(boxes + find_regions(img, bg, boxes, texts))
    labels = read_operators(img, bg, boxes, assign_text(boxes, texts))
    links = find_links(img, bg, boxes, texts)
    targets = [b.rect for b in boxes] + [t.rect for t in labels]
    regions = [i for i, b in enumerate(boxes) if b.children or large(b.rect, img.shape[:2])]
    links = bind(links, targets, regions, sizes(img)[1])
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
