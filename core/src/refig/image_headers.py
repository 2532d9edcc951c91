"""An image's size read from its header with the standard library: what ``refig suite validate``
checks against its pixel limit (before any plugin decodes the pixels, within the same limit) and
what the stage engine records of each rendered page."""

from __future__ import annotations

import io
import struct
from pathlib import Path
from typing import BinaryIO

#: Refuse images above this many pixels (a 30,000 x 30,000 PNG decodes to 2.7 GB of RGB): the
#: suites' check, and the default of the imaging toolkit, which decodes within it.
MAX_PIXELS = 64_000_000
FORMATS = "PNG, JPEG, GIF, BMP, WebP or TIFF"
#: JPEG start-of-frame markers (the ones that carry the size): C0-CF but C4, C8 and CC.
_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


class HeaderError(ValueError):
    """A file whose header names no image size: another format, or cut short."""


def image_size(source: Path | bytes) -> tuple[int, int]:
    """(width, height) declared by the header of a PNG, JPEG, GIF, BMP, WebP or TIFF file (or its
    bytes)."""
    with source.open("rb") if isinstance(source, Path) else io.BytesIO(source) as handle:
        head = handle.read(32)
        try:
            if head.startswith(b"\x89PNG\r\n\x1a\n"):
                if head[12:16] != b"IHDR":
                    raise HeaderError("its PNG header is cut short or damaged")
                return _pair(">II", head, 16)
            if head[:6] in (b"GIF87a", b"GIF89a"):
                return _pair("<HH", head, 6)
            if head[:2] == b"BM":
                width, height = _pair("<HH" if head[14:18] == b"\x0c\0\0\0" else "<ii", head, 18)
                return width, abs(height)  # a negative height is a top-down bitmap
            if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
                return _webp(head)
            if head[:2] == b"\xff\xd8":
                return _jpeg(handle)
            if head[:4] in (b"II*\0", b"MM\0*"):
                return _tiff(handle, "<" if head[:2] == b"II" else ">")
        except struct.error as exc:
            raise HeaderError("its header is cut short") from exc
    raise HeaderError(f"it is not a {FORMATS} file")


def _pair(layout: str, data: bytes, offset: int) -> tuple[int, int]:
    first, second = struct.unpack_from(layout, data, offset)
    return first, second


def _webp(head: bytes) -> tuple[int, int]:
    chunk = head[12:16]
    if chunk == b"VP8 ":
        width, height = _pair("<HH", head, 26)
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L":
        (bits,) = struct.unpack_from("<I", head, 21)
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X":
        return (int.from_bytes(head[24:27], "little") + 1,
                int.from_bytes(head[27:30], "little") + 1)
    raise HeaderError(f"its WebP chunk {chunk!r} is unknown")


def _jpeg(handle: BinaryIO) -> tuple[int, int]:
    """Walk the segments after SOI to the first start-of-frame."""
    handle.seek(2)
    while True:
        byte = handle.read(1)
        while byte == b"\xff":  # fill bytes before a marker
            byte = handle.read(1)
        if not byte:
            raise HeaderError("it ends before a JPEG frame header")
        marker = byte[0]
        if marker == 0x01 or 0xD0 <= marker <= 0xD8:  # markers without a length
            continue
        (length,) = struct.unpack(">H", handle.read(2))
        if marker in _SOF:
            height, width = _pair(">HH", handle.read(5), 1)
            return width, height
        handle.seek(length - 2, 1)


def _tiff(handle: BinaryIO, order: str) -> tuple[int, int]:
    """ImageWidth (256) and ImageLength (257) of the first image file directory."""
    handle.seek(4)
    (offset,) = struct.unpack(order + "I", handle.read(4))
    handle.seek(offset)
    (count,) = struct.unpack(order + "H", handle.read(2))
    size: dict[int, int] = {}
    for _ in range(count):
        tag, kind, _, value = struct.unpack(order + "HHI4s", handle.read(12))
        if tag in (256, 257):
            size[tag] = struct.unpack_from(order + ("H" if kind == 3 else "I"), value)[0]
    if len(size) < 2:
        raise HeaderError("its TIFF directory names no image size")
    return size[256], size[257]
