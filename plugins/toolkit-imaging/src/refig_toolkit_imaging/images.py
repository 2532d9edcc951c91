"""Reading untrusted images with bounded memory."""

from __future__ import annotations

import io
import re
import warnings
from pathlib import Path

import numpy as np
from PIL import Image
from refig.image_headers import MAX_PIXELS
from refig.plugin import RefigError

_BIG_FIX = "downscale the image, or raise the limit where the caller allows it"


class ImageError(RefigError):
    """An image that cannot be read safely: corrupt, or larger than ``MAX_PIXELS``."""


def _explained(exc: BaseException, stream: io.BytesIO | None, name: str) -> str:
    """Pillow's message about ``exc``, naming the file instead of ``<_io.BytesIO object ...>``."""
    text = str(exc)
    return text.replace(repr(stream), name) if stream is not None else text


def open_image(
    source: Path | bytes, *, max_pixels: int = MAX_PIXELS, mode: str = "RGB",
    name: str | Path | None = None,
) -> Image.Image:
    """Decode an image after checking its header size, converted to ``mode``.

    Pillow reads the dimensions before decoding pixels, so an oversized image (a decompression
    bomb) is refused without allocating its buffer. ``name`` is the file that bytes came from,
    for messages.
    """
    name = str(name or (source if isinstance(source, Path) else "<bytes>"))
    stream = None if isinstance(source, Path) else io.BytesIO(source)
    try:
        handle = Image.open(source if stream is None else stream)
    except Image.DecompressionBombError as exc:
        # Pillow refuses images far above its own limit before refig sees their size.
        found = re.search(r"\((\d+) pixels\)", str(exc))
        size = f"{int(found.group(1)):,} pixels" if found else "more pixels than Pillow opens"
        raise ImageError(f"image {name} has {size}, over the limit of {max_pixels:,}",
                         path=name, fix=_BIG_FIX) from exc
    except (OSError, ValueError) as exc:
        raise ImageError(f"cannot read image {name}: {_explained(exc, stream, name)}",
                         path=name) from exc
    width, height = handle.size
    if width * height > max_pixels:
        handle.close()
        raise ImageError(
            f"image {name} is {width}x{height} pixels, over the limit of {max_pixels:,}",
            path=name,
            fix=_BIG_FIX,
        )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            handle.load()
        if mode == "RGB" and ("A" in handle.getbands() or "transparency" in handle.info):
            return flatten_alpha(handle)
        return handle.convert(mode) if handle.mode != mode else handle
    except (OSError, ValueError, SyntaxError) as exc:
        handle.close()
        raise ImageError(f"cannot decode image {name}: {_explained(exc, stream, name)}",
                         path=name) from exc


def png_bytes(image: Image.Image) -> bytes:
    """PNG bytes with no time or text chunks, so the same pixels always give the same bytes."""
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=6)
    return buffer.getvalue()


#: zlib level of :func:`bgr_png_bytes`, written with one PNG filter ("up") for every row. What
#: encoding a rendered page costs is mostly choosing a filter per row, as Pillow does: one fixed
#: filter, through OpenCV's libpng, encodes a 1600 px slide about 2x faster (10 against 19 ms,
#: the PNG 2% larger; benchmarks/full_pass/render_share.py) and a program's 300 dpi figure 1.9
#: to 2.0x faster (the PNG 1.3 to 1.9x larger; benchmarks/code_exec --section encode), no
#: slower to decode, the pixels the same.
PNG_COMPRESS_LEVEL = 1


def bgr_png_bytes(bgr: np.ndarray) -> bytes:
    """The PNG of a rows x columns x (blue, green, red) ``uint8`` image, RGB 8 bits a channel,
    encoded for speed (:data:`PNG_COMPRESS_LEVEL`); the same pixels always give the same bytes."""
    import cv2

    params = [cv2.IMWRITE_PNG_COMPRESSION, PNG_COMPRESS_LEVEL,
              cv2.IMWRITE_PNG_FILTER, cv2.IMWRITE_PNG_FILTER_UP]
    ok, data = cv2.imencode(".png", bgr, params)
    if not ok:
        raise ImageError(f"OpenCV could not encode a {bgr.shape[1]}x{bgr.shape[0]} PNG")
    return data.tobytes()


def rgb_png_bytes(image: Image.Image) -> bytes:
    """:func:`bgr_png_bytes` of an RGB image (channels swapped by OpenCV: a tenth of numpy's
    copy of a reversed view, 4 against 43 ms for a 300 dpi R figure)."""
    import cv2

    return bgr_png_bytes(cv2.cvtColor(np.asarray(as_rgb(image)), cv2.COLOR_RGB2BGR))


def flatten_alpha(
    image: Image.Image, background: tuple[int, int, int] = (255, 255, 255)
) -> Image.Image:
    """RGB of an image with transparency composited on ``background``, as a slide or page shows it.

    A plain ``convert("RGB")`` drops the alpha channel and exposes whatever colour transparent
    pixels hold (often black). An image opaque everywhere (matplotlib's PNGs, say) is its RGB
    channels, which compositing would give too, without the work.
    """
    rgba = image if image.mode == "RGBA" else image.convert("RGBA")
    if rgba.getchannel("A").getextrema() == (255, 255):
        return rgba.convert("RGB")
    canvas = Image.new("RGBA", rgba.size, (*background, 255))
    return Image.alpha_composite(canvas, rgba).convert("RGB")


def as_rgb(image: Image.Image) -> Image.Image:
    """``image`` in RGB: itself when it already is (``convert`` would copy every pixel)."""
    return image if image.mode == "RGB" else image.convert("RGB")


def border_colour(image: Image.Image) -> tuple[int, int, int]:
    """The median RGB colour of the outermost pixel ring: the background a figure sits on."""
    rgb = as_rgb(image)
    w, h = rgb.size
    edges = [
        rgb.crop(box) for box in ((0, 0, w, 1), (0, h - 1, w, h), (0, 0, 1, h), (w - 1, 0, w, h))
    ]
    ring = np.concatenate([np.asarray(edge).reshape(-1, 3) for edge in edges])
    r, g, b = (int(v) for v in np.median(ring, axis=0))
    return r, g, b


def content_box(
    image: Image.Image, *, tolerance: int = 24, band_pixels: int = 1 << 22
) -> tuple[int, int, int, int] | None:
    """``(left, top, right, bottom)`` of the pixels that differ from the image's border colour.

    A pixel differs when one channel is more than ``tolerance`` away from :func:`border_colour`.
    The box is exact (comparisons such as SSIM need the same crop on both sides to the pixel);
    the image is scanned in bands of about ``band_pixels`` pixels so memory stays small, each
    band with two of Pillow's own passes (a per-channel table marking the levels too far from
    the border's, and the bounding box of the marked pixels), several times faster than the same
    test in NumPy. None when no pixel differs.
    """
    rgb = as_rgb(image)
    threshold = [255 if abs(level - channel) > tolerance else 0
                 for channel in border_colour(rgb) for level in range(256)]
    band_rows = max(1, band_pixels // rgb.width)
    box: tuple[int, int, int, int] | None = None
    for top in range(0, rgb.height, band_rows):
        whole = top == 0 and band_rows >= rgb.height
        band = rgb if whole else rgb.crop((0, top, rgb.width, min(rgb.height, top + band_rows)))
        hit = band.point(threshold).getbbox()
        if hit is not None:
            left, upper, right, lower = hit
            hit = (left, upper + top, right, lower + top)
            box = hit if box is None else (min(box[0], hit[0]), min(box[1], hit[1]),
                                           max(box[2], hit[2]), max(box[3], hit[3]))
    return box
