"""The pictures of a task page: source and renderings as web PNGs, and difference overlays."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image
from refig.plugin import ImageError, open_image

#: Pictures wider than this are downscaled for the page (the report stays light and offline).
MAX_WIDTH = 900
#: A pixel counts as different when its grey level differs by more than this (0-255).
DIFF_THRESHOLD = 32


def web_png(source: Path, target: Path) -> bool:
    """Decode ``source`` within refig's bounds and write it as a PNG at most MAX_WIDTH wide."""
    if target.exists():
        return True
    try:
        image = open_image(source)
    except ImageError:
        return False
    if image.width > MAX_WIDTH:
        image = image.resize(
            (MAX_WIDTH, max(1, round(image.height * MAX_WIDTH / image.width))),
            Image.Resampling.LANCZOS,
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    image.save(target, format="PNG", optimize=True)
    return True


def diff_overlay(source: Path, render: Path, target: Path) -> float | None:
    """Write the rendering in pale grey with differing pixels in red; return the differing share.

    The source is resized to the rendering's size (the slide's aspect ratio may differ: the overlay
    shows that too). None when either picture cannot be read.
    """
    try:
        ref = open_image(source)
        out = open_image(render)
    except ImageError:
        return None
    if out.width > MAX_WIDTH:
        out = out.resize(
            (MAX_WIDTH, max(1, round(out.height * MAX_WIDTH / out.width))), Image.Resampling.LANCZOS
        )
    ref = ref.resize(out.size, Image.Resampling.LANCZOS)
    a = np.asarray(ref.convert("L"), dtype=np.int16)
    b = np.asarray(out.convert("L"), dtype=np.int16)
    differs = np.abs(a - b) > DIFF_THRESHOLD
    base = 255 - (255 - b) * 0.35  # the rendering, faded
    rgb = np.repeat(base[:, :, None], 3, axis=2)
    rgb[differs] = (220, 30, 30)
    target.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(rgb.astype(np.uint8), mode="RGB").save(target, format="PNG", optimize=True)
    return float(differs.mean())
