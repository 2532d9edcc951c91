"""The messages a rubric judge sends: the rubric, both images as data URLs, and the audit."""

from __future__ import annotations

import base64
import io
from functools import lru_cache
from pathlib import Path
from typing import Any

from refig.images import open_image
from refig.rubric import Rubric

#: Bumped when the framing of the messages changes, so cached judgments are not reused.
PROMPT_VERSION = "1"

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


def judge_messages(rubric: Rubric, source: Path, render: Path, audit: str, *,
                   max_side: int) -> list[dict[str, Any]]:
    """System: the rubric. User: the source, the rendering, the audit."""
    def image(path: Path) -> dict[str, Any]:
        return {"type": "image_url", "image_url": {"url": data_url(path, max_side),
                                                  "detail": "high"}}

    return [
        {"role": "system", "content": rubric.prompt()},
        {"role": "user", "content": [
            {"type": "text", "text": "1. The source figure:"},
            image(source),
            {"type": "text", "text": "2. The rendering of the agent's slide:"},
            image(render),
            {"type": "text", "text": "3. The audit of the slide's objects, read from its XML:\n"
             + audit},
        ]},
    ]


def correction(error: str) -> dict[str, Any]:
    """The message that quotes a rejected answer's problem back to the model."""
    return {
        "role": "user",
        "content": (
            f"Your answer was rejected: {error}. Reply again with only the JSON object: every "
            "axis with a rationale and a score within its range, and total equal to the sum."
        ),
    }
