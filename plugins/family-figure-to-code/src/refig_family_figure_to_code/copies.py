"""Whether a program's image is a copy of one of its visible inputs, told by running it again.

An image equal to the figure is no evidence by itself: the reference program, re-run by a
deterministic toolchain, reproduces its figure, byte for byte in Python. So a suspicion (the
image is a byte copy or a perceptual near-copy of a visible input image) is decided by a second
run in which each suspected input is replaced by a decoy under the same name and format: an
image of its size made of random colour blocks, drawn afresh each time, so a program can neither
predict it nor turn it back into the input (a fixed transform, such as a mirror, could be
undone). A program that draws its figure draws the same image again; a program that copies the
input, however it built the file's name, now yields the decoy, something else or nothing. Only
a program whose picture follows its input that way copies it (``Execution.copied_input``),
which the ``code`` metric flags as ``smuggling``. The second run costs one more execution, only for
images that look like an input, and only when the first run is not proven never to have opened a
visible input image (:mod:`.input_watch`): a program that never read its figure cannot have
copied it, and a correct reference is such a program (its data files it may read).
"""

from __future__ import annotations

import hashlib
import io
import secrets
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
from PIL import Image
from refig_toolkit_imaging import ImageError, open_image

#: Side of the thumbnails compared.
SIDE = 64
#: Mean absolute difference (0-1, over RGB thumbnails) under which two images are one picture.
NEAR = 0.04
#: The decoy's blocks a side.
DECOY_BLOCKS = 8
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


def may_be_copied(name: str) -> bool:
    """Whether an input of this name can be a suspect: an image (PNG or JPEG)."""
    return Path(name).suffix.lower() in _IMAGE_SUFFIXES


def suspects(png: bytes, digest: str, inputs: Mapping[str, Path]) -> list[str]:
    """The names of visible input images the image (``png``; ``digest``: its file's sha256)
    copies byte for byte or nearly."""
    image = _load(png)
    found = []
    for name, path in inputs.items():
        if not may_be_copied(name):
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
    """An image of the input's size in ``name``'s format showing blocks of random colours: no
    program can tell it from the input's pixels or turn it back into them."""
    with Image.open(path) as head:
        size = head.size
    blocks = np.frombuffer(secrets.token_bytes(DECOY_BLOCKS * DECOY_BLOCKS * 3), dtype=np.uint8)
    image = Image.fromarray(blocks.reshape(DECOY_BLOCKS, DECOY_BLOCKS, 3), "RGB").resize(
        size, Image.Resampling.NEAREST)
    buffer = io.BytesIO()
    image.save(buffer, format=_IMAGE_SUFFIXES[Path(name).suffix.lower()])
    return buffer.getvalue()


def copied_input(png: bytes, names: Sequence[str], inputs: Mapping[str, Path],
                 rerun: Callable[[Mapping[str, Path]], bytes | None]) -> str | None:
    """The visible input the image copies, or None; ``names`` are the image's
    :func:`suspects`, ``rerun(inputs)`` runs the program again with the given inputs and
    returns its image as PNG bytes (None when it made none).

    The image copies an input when, that input swapped for a decoy, the program no longer
    makes the same picture: it yields the decoy, something else, or nothing (a program that
    checks the input's hash and fails on anything else is caught too)."""
    first = _load(png)
    if not names or first is None:
        return None
    with tempfile.TemporaryDirectory(prefix="refig-decoy-") as scratch:
        swapped = dict(inputs)
        for index, name in enumerate(names):
            target = Path(scratch) / f"{index}{Path(name).suffix}"
            target.write_bytes(decoy(inputs[name], name))
            swapped[name] = target
        again = rerun(swapped)
    image = _load(again) if again is not None else None
    return None if image is not None and near(image, first) else names[0]
