"""Lines and arrows of a figure, traced through the skeleton of what boxes and text leave.

1. Arrow heads are the blobs that an opening with a disk a little wider than the lines keeps.
2. The rest is joined across dash gaps (along rows, along columns), skeletonised
   (scikit-image) and cut at its junctions into branches.
3. At each junction the branches that continue one another (opposite directions) are paired,
   so crossing links pass through each other; followed from pair to pair, branches form
   chains, one per drawn line, elbows included. Chain ends that meet across a dash gap at an
   elbow are joined (nearest first, through a k-d tree). A line ending on another one at a T
   splits it into two links when that makes a fan-out (heads on the bar) or a fan-in (head on
   the stem).
4. A chain end next to a head carries it, its point moved to the head's tip. A chain that
   closes on itself is an outline, not a link.
"""

from __future__ import annotations

import cv2
import numpy as np
from skimage.morphology import skeletonize

from refig_harness_baseline.cv.chains import Chain, skeleton_chains
from refig_harness_baseline.cv.joins import attach_heads, join_corners, split_tees
from refig_harness_baseline.cv.scene import RGB, Link
from refig_harness_baseline.cv.strokes import bridge, disk, find_heads

#: A line whose skeleton is inked for less than this share is dashed (dashes join across gaps).
DASHED = 0.8
#: A plain (headless) line shorter than this many minimum box sides is a glyph's detail.
PLAIN_MIN = 2
def deviation(points: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """Largest distance of ``points`` from the segment a-b."""
    ab = b - a
    norm = float(np.hypot(*ab))
    if norm == 0:
        return 0.0
    t = np.clip(((points - a) @ ab) / (norm * norm), 0, 1)
    nearest = a + t[:, None] * ab
    return float(np.max(np.hypot(*(points - nearest).T)))


def _line_skeleton(joined: np.ndarray, unit: int) -> np.ndarray:
    """The skeleton of the components that look like lines: not specks, not blobs (icons,
    photos: much more ink than their skeleton's length times a line's width)."""
    skeleton = skeletonize(joined.astype(bool))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(joined, connectivity=8)
    length = np.bincount(labels[skeleton], minlength=count)
    keep = ((stats[:, 2:4].max(axis=1) >= unit) & (length > 0)
            & (stats[:, 4] <= max(8.0, 4 * unit) * np.maximum(length, 1)))
    keep[0] = False
    return (skeleton & keep[labels]).astype(np.uint8)


def trace(residual: np.ndarray, img: np.ndarray, unit: int, min_side: int) -> list[Link]:
    """The links (not yet bound) drawn by ``residual``, the ink left once boxes and text are
    erased."""
    padded = cv2.copyMakeBorder(residual, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    distance = cv2.distanceTransform(padded, cv2.DIST_L2, 3)[1:-1, 1:-1]
    centres = skeletonize(residual.astype(bool))
    if not centres.any():
        return []
    # The typical line width: twice the distance to the background at the lines' centres.
    thickness = max(1.0, 2 * float(np.median(distance[centres])))
    heads, head_boxes = find_heads(residual, thickness)
    lines = residual & (1 - cv2.dilate((heads > 0).astype(np.uint8), np.ones((5, 5), np.uint8)))
    gap = 2 * unit + 3
    skeleton = _line_skeleton(bridge(lines, gap, int(np.ceil(1.5 * thickness)) + 1), unit)
    reach = 2 * thickness + 6
    headed = cv2.dilate((heads > 0).astype(np.uint8), disk(int(reach)))
    chains = [c for c in skeleton_chains(skeleton, thickness, headed) if not c.closed]
    attach_heads(chains, heads, head_boxes, residual, reach)
    chains = split_tees(join_corners(chains, 2 * gap), reach)
    links: list[Link] = []
    for chain in chains:
        start, end = chain.ends
        headed_chain = start.head is not None or end.head is not None
        span = float(np.hypot(end.at[0] - start.at[0], end.at[1] - start.at[1]))
        if len(chain.points) < min_side * (1 if headed_chain else PLAIN_MIN) or span < min_side / 2:
            continue  # a short plain stroke is a glyph's detail more often than a link
        links.append(_link(chain, img, lines, distance, thickness))
    return links


def _link(chain: Chain, img: np.ndarray, lines: np.ndarray, distance: np.ndarray,
          thickness: float) -> Link:
    """A chain as a link: colour and width from its ink, dashed when its skeleton is often
    bare (dash gaps), elbow when it strays from the straight line between its ends."""
    start, end = chain.ends
    xs, ys = chain.points[:, 0].astype(int), chain.points[:, 1].astype(int)
    inked = lines[ys, xs] == 1
    ink = img[ys[inked], xs[inked]]
    median = np.median(ink, axis=0) if len(ink) else np.zeros(3)
    color: RGB = (int(median[0]), int(median[1]), int(median[2]))
    width = 2 * float(np.median(distance[ys[inked], xs[inked]])) if inked.any() else thickness
    bend = deviation(chain.points, np.array(start.at), np.array(end.at))
    return Link(start.at, end.at, elbow=bend > max(6.0, 3 * thickness),
                head_start=start.head is not None, head_end=end.head is not None,
                color=color, width_px=max(1.0, width), dashed=bool(inked.mean() < DASHED))
