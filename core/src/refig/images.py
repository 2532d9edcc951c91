"""Reading untrusted images with bounded memory."""

from __future__ import annotations

import io
import warnings
from pathlib import Path

from PIL import Image

from refig.errors import RefigError

#: Refuse images above this many pixels (a 30,000 x 30,000 PNG decodes to 2.7 GB of RGB).
MAX_PIXELS = 64_000_000


class ImageError(RefigError):
    """An image that cannot be read safely: corrupt, or larger than ``MAX_PIXELS``."""


def open_image(
    source: Path | bytes, *, max_pixels: int = MAX_PIXELS, mode: str = "RGB"
) -> Image.Image:
    """Decode an image after checking its header size, converted to ``mode``.

    Pillow reads the dimensions before decoding pixels, so an oversized image (a decompression
    bomb) is refused without allocating its buffer.
    """
    name = str(source) if isinstance(source, Path) else "<bytes>"
    try:
        handle = Image.open(source if isinstance(source, Path) else io.BytesIO(source))
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        raise ImageError(f"cannot read image: {exc}", path=name) from exc
    width, height = handle.size
    if width * height > max_pixels:
        handle.close()
        raise ImageError(
            f"image is {width}x{height} pixels, over the limit of {max_pixels:,}",
            path=name,
            fix="downscale the image, or raise the limit where the caller allows it",
        )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            handle.load()
        return handle.convert(mode) if handle.mode != mode else handle
    except (OSError, ValueError, SyntaxError) as exc:
        raise ImageError(f"cannot decode image: {exc}", path=name) from exc
