"""What the slide probes read from the renderings: ink, what stayed, what changed, lines met.

Every comparison is between two slides of one conversion (the unedited copy and a variant), so
the only differences are the edit's. A pixel is *ink* where it differs from the local background
(the median colour of a ring around the box) by more than :data:`INK` in some channel; it *stays*
where the variant's pixel is within :data:`INK` of the original's.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage

#: Channel difference (0..255) that counts as ink or as a change.
INK = 40
#: The ring (px) around a box whose median colour is the local background.
RING_GAP, RING_WIDTH = 4, 6
#: The band (px) outside a box in which lines that meet it are counted.
BAND_GAP, BAND_WIDTH = 3, 6

Box = tuple[int, int, int, int]  # x0, y0, x1, y1 (exclusive), pixels


def clip(box: Box, image: np.ndarray) -> Box:
    """The box inside the image."""
    height, width = image.shape[:2]
    x0, y0, x1, y1 = box
    return max(0, x0), max(0, y0), min(width, x1), min(height, y1)


def grow(box: Box, by: int) -> Box:
    """The box grown by ``by`` pixels on every side."""
    return box[0] - by, box[1] - by, box[2] + by, box[3] + by


def box_mask(image: np.ndarray, box: Box) -> np.ndarray:
    """A boolean mask of the (clipped) box."""
    mask = np.zeros(image.shape[:2], dtype=bool)
    x0, y0, x1, y1 = clip(box, image)
    if x1 > x0 and y1 > y0:
        mask[y0:y1, x0:x1] = True
    return mask


def ring(image: np.ndarray, box: Box, gap: int, width: int) -> np.ndarray:
    """The pixels between ``gap`` and ``gap + width`` outside the box."""
    return box_mask(image, grow(box, gap + width)) & ~box_mask(image, grow(box, gap))


def background(image: np.ndarray, box: Box) -> np.ndarray:
    """The median colour around the box (the slide's colour when the ring leaves the image)."""
    around = image[ring(image, box, RING_GAP, RING_WIDTH)]
    if len(around) == 0:
        around = image.reshape(-1, image.shape[2])
    return np.median(around, axis=0)


def differs(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Where two images (or an image and a colour) differ by more than :data:`INK`."""
    return np.abs(a.astype(np.int16) - np.asarray(b).astype(np.int16)).max(axis=-1) > INK


def ink(image: np.ndarray, box: Box) -> np.ndarray:
    """The box's ink: its pixels unlike the colour around it."""
    return differs(image, background(image, box)) & box_mask(image, box)


def kept(
    original: np.ndarray, variant: np.ndarray, box: Box, exclude: Box | None = None
) -> tuple[float | None, int]:
    """The share of the box's ink (outside ``exclude``) the variant still shows, and how many ink
    pixels there were (None when there were none)."""
    mask = ink(original, box)
    if exclude is not None:
        mask &= ~box_mask(original, exclude)
    count = int(mask.sum())
    if count == 0:
        return None, 0
    stayed = mask & ~differs(original, variant)
    return float(stayed.sum()) / count, count


def lines_meeting(image: np.ndarray, box: Box, unlike: np.ndarray | None = None) -> int:
    """How many separate strokes cross the band just outside the box: the lines that meet it.
    With ``unlike`` (another rendering), only strokes where the image differs from it count:
    what an edit drew there, not what was there before."""
    band = ring(image, box, BAND_GAP, BAND_WIDTH)
    strokes = differs(image, background(image, box)) & band
    if unlike is not None:
        strokes &= differs(image, unlike)
    _, count = ndimage.label(strokes, structure=np.ones((3, 3), dtype=bool))
    return int(count)


def changed_outside(original: np.ndarray, variant: np.ndarray, box: Box) -> int:
    """Pixels that changed outside the box."""
    return int((differs(original, variant) & ~box_mask(original, box)).sum())


def changed_inside(original: np.ndarray, variant: np.ndarray, box: Box) -> int:
    """Pixels that changed inside the box."""
    return int((differs(original, variant) & box_mask(original, box)).sum())


def share_near(variant: np.ndarray, box: Box, colour: tuple[int, int, int]) -> float:
    """The share of the box's pixels within :data:`INK` of ``colour``."""
    mask = box_mask(variant, box)
    area = int(mask.sum())
    if area == 0:
        return 0.0
    return float((~differs(variant, np.array(colour)) & mask).sum()) / area
