"""Image sizes read from headers with the standard library agree with Pillow's, in every format
a suite's images come in, and a file that is no image says why."""

from __future__ import annotations

import io
import struct

import pytest
from PIL import Image
from refig.image_headers import HeaderError, image_size

SIZES = ((1, 1), (640, 480), (3001, 17), (17, 2999))
FORMATS = (
    ("PNG", {}), ("JPEG", {}), ("JPEG", {"progressive": True}), ("GIF", {}), ("BMP", {}),
    ("WEBP", {"lossless": True}), ("WEBP", {"quality": 80}), ("TIFF", {}),
    ("TIFF", {"compression": "tiff_lzw"}),
)


@pytest.mark.parametrize(("fmt", "options"), FORMATS)
def test_the_header_gives_the_size_pillow_gives(fmt, options) -> None:
    for size in SIZES:
        buffer = io.BytesIO()
        Image.new("RGB", size, (10, 200, 30)).save(buffer, fmt, **options)
        assert image_size(buffer.getvalue()) == size, (fmt, options, size)


def test_big_endian_tiff_and_top_down_bitmap(tmp_path) -> None:
    tiff = tmp_path / "big.tiff"  # width a SHORT, height a LONG, as writers choose
    tiff.write_bytes(b"MM\0*" + struct.pack(">IH", 8, 2) + struct.pack(">HHIH2x", 256, 3, 1, 300)
                     + struct.pack(">HHII", 257, 4, 1, 200) + b"\0" * 4)
    assert image_size(tiff) == (300, 200)
    buffer = io.BytesIO()
    Image.new("RGB", (40, 30)).save(buffer, "BMP")
    top_down = bytearray(buffer.getvalue())
    top_down[22:26] = (-30).to_bytes(4, "little", signed=True)
    assert image_size(bytes(top_down)) == (40, 30)


@pytest.mark.parametrize(("data", "why"), [
    (b"not an image", "it is not a PNG, JPEG, GIF, BMP, WebP or TIFF file"),
    (b"\x89PNG\r\n\x1a\n", "its PNG header is cut short or damaged"),
    (b"GIF89a\x01", "its header is cut short"),
    (b"\xff\xd8\xff\xe0\x00\x10JFIF\x00", "it ends before a JPEG frame header"),
])
def test_what_is_no_image_says_why(data, why) -> None:
    with pytest.raises(HeaderError, match=why):
        image_size(data)
