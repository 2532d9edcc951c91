"""Pictures derived from the run's images: list thumbnails and difference images, as PNG bytes.

Sources are decoded within refig's pixel bound (:func:`refig.images.open_image`), so a hostile
image cannot exhaust memory; None means the picture cannot be read.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
from PIL import Image
from refig.plugin import ImageError, open_image

#: Width of the list's thumbnails, in pixels.
THUMB_WIDTH = 160
#: A pixel counts as different when its grey level differs by more than this (0-255).
DIFF_THRESHOLD = 32


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


def difference(source: Path, render: Path) -> tuple[bytes, float] | None:
    """The rendering faded to grey with differing pixels in red, and the differing share.

    The source is resized to the rendering's size (a slide's aspect ratio may differ from the
    figure's: the picture shows that too).
    """
    try:
        ref = open_image(source)
        out = open_image(render)
    except ImageError:
        return None
    ref = ref.resize(out.size, Image.Resampling.LANCZOS)
    a = np.asarray(ref.convert("L"), dtype=np.int16)
    b = np.asarray(out.convert("L"), dtype=np.int16)
    differs = np.abs(a - b) > DIFF_THRESHOLD
    base = 255 - (255 - b) * 0.35
    rgb = np.repeat(base[:, :, None], 3, axis=2)
    rgb[differs] = (220, 30, 30)
    return _png(Image.fromarray(rgb.astype(np.uint8), mode="RGB")), float(differs.mean())
