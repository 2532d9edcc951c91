"""What the slide probes read from the renderings: ink, what stayed, what changed, lines met.

Every comparison is between two slides of one conversion (the unedited copy and a variant), so
the only differences are the edit's. A pixel is *ink* where it differs from the local background
(the median colour of a ring around the box) by more than :data:`INK` in some channel; it *stays*
where the variant's pixel is within :data:`INK` of the original's. Each measure reads only the
box and the margin it needs.
"""

from __future__ import annotations

import cv2
import numpy as np

#: Channel difference (0..255) that counts as ink or as a change.
INK = 40
#: The ring (px) around a box whose median colour is the local background.
RING_GAP, RING_WIDTH = 4, 6
#: Where a line leaving a box is looked for: in the band this far (px) outside it, this wide,
#: within this reach of where it should leave.
BAND_GAP, BAND_WIDTH, REACH = 3, 6, 12

Box = tuple[int, int, int, int]  # x0, y0, x1, y1 (exclusive), pixels


def clip(box: Box, image: np.ndarray) -> Box:
    """The box inside the image."""
    height, width = image.shape[:2]
    x0, y0, x1, y1 = box
    return max(0, x0), max(0, y0), min(width, max(0, x1)), min(height, max(0, y1))


def grow(box: Box, by: int) -> Box:
    """The box grown by ``by`` pixels on every side."""
    return box[0] - by, box[1] - by, box[2] + by, box[3] + by


def window(image: np.ndarray, box: Box) -> tuple[np.ndarray, Box]:
    """The image's pixels under the (clipped) box, and that box."""
    x0, y0, x1, y1 = clip(box, image)
    return image[y0:y1, x0:x1], (x0, y0, x1, y1)


def box_mask(frame: Box, box: Box) -> np.ndarray:
    """A boolean mask over ``frame`` of the part of ``box`` inside it."""
    fx0, fy0, fx1, fy1 = frame
    mask = np.zeros((fy1 - fy0, fx1 - fx0), dtype=bool)
    x0, y0 = max(box[0], fx0) - fx0, max(box[1], fy0) - fy0
    x1, y1 = min(box[2], fx1) - fx0, min(box[3], fy1) - fy0
    if x1 > x0 and y1 > y0:
        mask[y0:y1, x0:x1] = True
    return mask


def differs(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Where two images (or an image and a colour) differ by more than :data:`INK`."""
    if b.shape == a.shape and a.dtype == b.dtype == np.uint8:
        gap = cv2.absdiff(a, b)  # an order of magnitude faster than numpy's, the same values
    else:
        gap = np.abs(a.astype(np.int16) - np.asarray(b).astype(np.int16))
    return np.maximum(np.maximum(gap[..., 0], gap[..., 1]), gap[..., 2]) > INK


def background(image: np.ndarray, box: Box) -> np.ndarray:
    """The median colour around the box (the whole image's when the ring leaves it)."""
    outer = grow(box, RING_GAP + RING_WIDTH)
    pixels, frame = window(image, outer)
    ring = box_mask(frame, outer) & ~box_mask(frame, grow(box, RING_GAP))
    around = pixels[ring]
    if len(around) == 0:
        around = image.reshape(-1, image.shape[2])
    return np.median(around, axis=0)


def kept(
    original: np.ndarray, variant: np.ndarray, box: Box, exclude: Box | None = None
) -> tuple[float | None, int]:
    """The share of the box's ink (outside ``exclude``) the variant still shows, and how many ink
    pixels there were (None when there were none)."""
    before, frame = window(original, box)
    after, _ = window(variant, box)
    mask = differs(before, background(original, box))
    if exclude is not None:
        mask &= ~box_mask(frame, exclude)
    count = int(mask.sum())
    if count == 0:
        return None, 0
    stayed = mask & ~differs(before, after)
    return float(stayed.sum()) / count, count


def leaves(image: np.ndarray, box: Box, point: tuple[float, float]) -> bool:
    """Whether a line leaves the box at ``point`` (on its border): ink, against the colour
    around the box, in the band :data:`BAND_GAP` to :data:`BAND_GAP` + :data:`BAND_WIDTH` px
    outside the box, within :data:`REACH` px of the point."""
    x, y = round(point[0]), round(point[1])
    near = (x - REACH, y - REACH, x + REACH + 1, y + REACH + 1)
    pixels, frame = window(image, near)
    band = box_mask(frame, grow(box, BAND_GAP + BAND_WIDTH)) & ~box_mask(frame, grow(box, BAND_GAP))
    return bool((differs(pixels, background(image, box)) & band).any())


def drawn_near(image: np.ndarray, without: np.ndarray, point: tuple[float, float]) -> bool:
    """Whether ``image`` shows ink that ``without`` (the same slide without it) lacks within
    :data:`REACH` px of ``point``."""
    x, y = round(point[0]), round(point[1])
    near = (x - REACH, y - REACH, x + REACH + 1, y + REACH + 1)
    return bool(differs(window(image, near)[0], window(without, near)[0]).any())


def changed_outside(original: np.ndarray, variant: np.ndarray, box: Box) -> int:
    """Pixels that changed outside the box."""
    mask = differs(original, variant)
    x0, y0, x1, y1 = clip(box, original)
    mask[y0:y1, x0:x1] = False
    return int(mask.sum())


def changed_inside(original: np.ndarray, variant: np.ndarray, box: Box) -> int:
    """Pixels that changed inside the box."""
    return int(differs(window(original, box)[0], window(variant, box)[0]).sum())


def share_near(variant: np.ndarray, box: Box, colour: tuple[int, int, int]) -> float:
    """The share of the box's pixels within :data:`INK` of ``colour``."""
    pixels, _ = window(variant, box)
    if pixels.size == 0:
        return 0.0
    return float((~differs(pixels, np.array(colour))).mean())
