"""Whether a program's image is a copy of one of its visible inputs, told by running it again.

An image equal to the figure is no evidence by itself: the reference program, re-run by a
deterministic toolchain, reproduces its figure, byte for byte in Python. So a suspicion (the
image is a byte copy or a perceptual near-copy of a visible input image) is decided by a second
run in which each suspected input is replaced by a decoy, the same image mirrored with its
colours inverted, under the same name and format. A program that draws its figure draws the
same image again; a program that copies the input, however it built the file's name, now
yields the decoy. Only that second outcome is a copy (``Execution.copied_input``), which the
``code`` metric flags as ``smuggling``. The second run costs one more execution, only for
images that look like an input.
"""

from __future__ import annotations

import hashlib
import io
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np
from PIL import Image, ImageOps
from refig.plugin import ImageError, open_image

#: Side of the thumbnails compared.
SIDE = 64
#: Mean absolute difference (0-1, over RGB thumbnails) under which two images are one picture.
NEAR = 0.04
_IMAGE_SUFFIXES = {".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG"}
_MAX_PIXELS = 25_000_000


def _thumbnail(image: Image.Image) -> np.ndarray:
    return np.asarray(image.convert("RGB").resize((SIDE, SIDE), Image.Resampling.BILINEAR),
                      dtype=np.float32) / 255.0


def _load(source: Path | bytes) -> Image.Image | None:
    try:
        return open_image(source, max_pixels=_MAX_PIXELS)
    except ImageError:
        return None


def near(a: Image.Image, b: Image.Image) -> bool:
    """Whether two images show one picture (thumbnails within :data:`NEAR`)."""
    return float(np.abs(_thumbnail(a) - _thumbnail(b)).mean()) < NEAR


def suspects(png: bytes, digest: str, inputs: Mapping[str, Path]) -> list[str]:
    """The names of visible input images the image (``png``; ``digest``: its file's sha256)
    copies byte for byte or nearly."""
    image = _load(png)
    found = []
    for name, path in inputs.items():
        if Path(name).suffix.lower() not in _IMAGE_SUFFIXES:
            continue
        data = path.read_bytes()
        if hashlib.sha256(data).hexdigest() == digest:
            found.append(name)
            continue
        other = _load(data)
        if image is not None and other is not None and near(image, other):
            found.append(name)
    return found


def decoy(path: Path, name: str) -> bytes:
    """The input at ``path`` mirrored with its colours inverted, in ``name``'s format."""
    image = open_image(path, max_pixels=_MAX_PIXELS)
    buffer = io.BytesIO()
    ImageOps.mirror(ImageOps.invert(image.convert("RGB"))).save(
        buffer, format=_IMAGE_SUFFIXES[Path(name).suffix.lower()])
    return buffer.getvalue()


def copied_input(png: bytes, digest: str, inputs: Mapping[str, Path],
                 rerun: Callable[[Mapping[str, Path]], bytes | None]) -> str | None:
    """The visible input the image copies, or None; ``rerun(inputs)`` runs the program again
    with the given inputs and returns its image as PNG bytes (None when it made none)."""
    names = suspects(png, digest, inputs)
    if not names:
        return None
    with tempfile.TemporaryDirectory(prefix="refig-decoy-") as scratch:
        swapped = dict(inputs)
        decoys: dict[str, bytes] = {}
        for index, name in enumerate(names):
            decoys[name] = decoy(inputs[name], name)
            target = Path(scratch) / f"{index}{Path(name).suffix}"
            target.write_bytes(decoys[name])
            swapped[name] = target
        again = rerun(swapped)
    image = _load(again) if again is not None else None
    if image is None:
        return None
    for name in names:
        if near(image, open_image(decoys[name], max_pixels=_MAX_PIXELS)):
            return name
    return None
