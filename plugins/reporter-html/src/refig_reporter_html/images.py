"""Pictures derived from the run's images: list thumbnails and difference images, as PNG bytes.

Sources are decoded within refig's pixel bound (:func:`refig_toolkit_imaging.images.open_image`), so
a hostile image cannot exhaust memory; None means the picture cannot be read.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
from PIL import Image
from refig_toolkit_imaging import ImageError, open_image

#: Width of the list's thumbnails, in pixels.
THUMB_WIDTH = 160
#: A pixel counts as different when its grey level differs by more than this (0-255) from
#: every pixel of the other picture near it.
DIFF_THRESHOLD = 48
#: How near, as a share of the picture's shorter side (at least 1 pixel): a rebuild's lines and
#: letters sit a pixel or two off the source's and are anti-aliased differently, which a
#: pixel-by-pixel test marks everywhere.
DIFF_TOLERANCE = 1 / 300


def _png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


def thumbnail(source: Path, width: int = THUMB_WIDTH) -> bytes | None:
    """The image at most ``width`` pixels wide, as PNG."""
    try:
        image = open_image(source)
    except ImageError:
        return None
    image.thumbnail((width, width * 4), Image.Resampling.LANCZOS)
    return _png(image)


def tolerance(size: tuple[int, int]) -> int:
    """Pixels a line may sit off its place in a picture of ``size`` and not be marked."""
    return max(1, round(min(size) * DIFF_TOLERANCE))


def _window(a: np.ndarray, radius: int, pick: np.ufunc) -> np.ndarray:
    """``pick`` (minimum or maximum) of ``a`` over a square of side ``2 * radius + 1``, one
    axis at a time."""
    for axis in (0, 1):
        padded = np.pad(a, [(radius, radius) if k == axis else (0, 0) for k in (0, 1)],
                        mode="edge")
        found = padded.take(range(0, a.shape[axis]), axis=axis)
        for shift in range(1, 2 * radius + 1):
            found = pick(found, padded.take(range(shift, shift + a.shape[axis]), axis=axis))
        a = found
    return a


def _outside(a: np.ndarray, b: np.ndarray, radius: int) -> np.ndarray:
    """Per pixel of ``b``: how far its grey level lies outside the range of ``a``'s levels
    within ``radius`` (0 inside)."""
    low, high = _window(a, radius, np.minimum), _window(a, radius, np.maximum)
    return np.maximum(np.maximum(b - high, low - b), 0)


def differing(a: np.ndarray, b: np.ndarray, radius: int) -> np.ndarray:
    """Pixels where two grey pictures differ beyond a shift of ``radius`` and anti-aliasing:
    in either direction, so what the result lacks is marked as well as what it adds."""
    return (_outside(a, b, radius) > DIFF_THRESHOLD) | (_outside(b, a, radius) > DIFF_THRESHOLD)


def difference(source: Path, render: Path) -> tuple[bytes, float] | None:
    """The rendering faded to grey with differing pixels in red, and the differing share.

    The source is resized to the rendering's size (a slide's aspect ratio may differ from the
    figure's: the picture shows that too). A pixel is red when its grey level lies more than
    :data:`DIFF_THRESHOLD` outside the range of the other picture's levels within
    :func:`tolerance` pixels, so a faithful rebuild is not red wherever its edges fall a
    pixel off or are anti-aliased otherwise.
    """
    try:
        ref = open_image(source)
        out = open_image(render)
    except ImageError:
        return None
    ref = ref.resize(out.size, Image.Resampling.LANCZOS)
    a = np.asarray(ref.convert("L"), dtype=np.int16)
    b = np.asarray(out.convert("L"), dtype=np.int16)
    differs = differing(a, b, tolerance(out.size))
    base = 255 - (255 - b) * 0.35
    rgb = np.repeat(base[:, :, None], 3, axis=2)
    rgb[differs] = (220, 30, 30)
    return _png(Image.fromarray(rgb.astype(np.uint8), mode="RGB")), float(differs.mean())
