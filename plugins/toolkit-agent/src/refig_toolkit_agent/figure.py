"""How the source figure reaches the agent: a recorded, selectable part of the configuration.

``inline`` attaches the figure to the first message as an image (Claude Code and Qwen Code
through ``--input-format stream-json`` with an image content block, Codex through ``--image``);
``file`` leaves it only as ``source.png`` in the workspace, for the agent to open with a tool.
Every CLI harness reads the ``figure`` option, the default is the same for all of them, and
``refig run`` writes it into the configuration id, so two deliveries never share an id.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Literal

Delivery = Literal["inline", "file"]
FIGURE_DELIVERY: tuple[Delivery, ...] = ("inline", "file")
DEFAULT_FIGURE: Delivery = "inline"
#: The option key, in ``--harness-opt figure=...`` and in the configuration id.
OPTION = "figure"

#: Image types every provider's API takes in a message, by leading bytes.
_INLINE_TYPES = ((b"\x89PNG\r\n\x1a\n", "image/png"), (b"\xff\xd8\xff", "image/jpeg"))
#: Anthropic's limits for one image: 5 MB (of the decoded bytes) and 8000 px a side.
MAX_BYTES, MAX_SIDE = 5 * 1024 * 1024, 8000


def inline_image(path: Path) -> tuple[str, bytes]:
    """The figure as (media type, bytes) any provider accepts inline: PNG or JPEG as they are
    when within the limits, else re-encoded as PNG, downscaled to fit."""
    from refig_toolkit_imaging import open_image, png_bytes

    data = path.read_bytes()
    kind = next((mime for magic, mime in _INLINE_TYPES if data.startswith(magic)), None)
    image = None
    if kind is None or len(data) > MAX_BYTES:
        image = open_image(data)
    else:
        with open_image(data) as probe:
            if max(probe.size) > MAX_SIDE:
                image = probe.copy()
    if image is None:
        return kind or "image/png", data
    scale = min(1.0, MAX_SIDE / max(image.size))
    while True:
        size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
        encoded = png_bytes(image.resize(size) if scale < 1 else image)
        if len(encoded) <= MAX_BYTES:
            return "image/png", encoded
        scale *= 0.75


def stream_json_message(prompt: str, figure: Path | None) -> bytes:
    """One ``user`` message line for ``--input-format stream-json``: the prompt, then the figure
    as a base64 image content block when ``figure`` is given."""
    content: list[dict[str, object]] = [{"type": "text", "text": prompt}]
    if figure is not None:
        mime, data = inline_image(figure)
        content.append({"type": "image", "source": {
            "type": "base64", "media_type": mime, "data": base64.b64encode(data).decode()}})
    message = {"type": "user", "message": {"role": "user", "content": content},
               "parent_tool_use_id": None}
    return (json.dumps(message) + "\n").encode()
