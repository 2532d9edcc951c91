"""Images as base64 data URLs for a chat message, downscaled to a maximum side."""

from __future__ import annotations

import base64
import io
from functools import lru_cache
from pathlib import Path

from refig_toolkit_imaging import open_image

#: Formats sent as they are (when small enough); anything else is re-encoded as PNG.
_PASSTHROUGH = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp"}
_MAX_PASSTHROUGH_BYTES = 8_000_000


@lru_cache(maxsize=64)
def _data_url(path: str, mtime_ns: int, size: int, max_side: int) -> str:
    image = open_image(Path(path), mode="RGB")
    with open(path, "rb") as handle:
        fmt = _format(handle.read(16))
    if max(image.size) <= max_side and fmt in _PASSTHROUGH and size <= _MAX_PASSTHROUGH_BYTES:
        data, mime = Path(path).read_bytes(), _PASSTHROUGH[fmt]
    else:
        image.thumbnail((max_side, max_side))
        buffer = io.BytesIO()
        image.save(buffer, format="PNG", optimize=True)
        data, mime = buffer.getvalue(), "image/png"
    return f"data:{mime};base64," + base64.b64encode(data).decode("ascii")


def _format(head: bytes) -> str | None:
    if head.startswith(b"\x89PNG"):
        return "PNG"
    if head.startswith(b"\xff\xd8"):
        return "JPEG"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "WEBP"
    return None


def data_url(path: Path, max_side: int) -> str:
    """The image as a base64 data URL, downscaled to ``max_side`` pixels at most."""
    stat = path.stat()
    return _data_url(str(path.resolve()), stat.st_mtime_ns, stat.st_size, max_side)
