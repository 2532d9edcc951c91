"""A deck judge stand-in on 127.0.0.1 that reads its evidence, as a careful judge would.

It answers the schema it is sent. IF: from the structural diffs, the share of requested change
lines that also appear among the done ones (without diffs, whether every edited rendering equals
its target's); VQ: 5 when every edited slide's rendering equals the target's, else 2. ``script``
makes chosen calls fail (``garbage``: not JSON; ``error``: HTTP 500). A mock only in that no model
runs: the HTTP, the client, the schema and the parsing are the real ones.
"""

from __future__ import annotations

import base64
import io
import json
import re
import threading
from dataclasses import dataclass, field
from typing import Any

from PIL import Image, ImageChops
from refig_toolkit_agent.httpserver import LocalServer, Request, Response

ASKED = re.compile(r"\(what was asked\) \(\d+\):\n((?:- .*\n?)*)")
DONE = re.compile(r"\(what was done\) \(\d+\):\n((?:- .*\n?)*)")


def _lines(pattern: re.Pattern[str], text: str) -> set[str]:
    found = pattern.search(text)
    return {line for line in found.group(1).splitlines() if line} if found else set()


def _same(one: str, two: str) -> bool:
    a, b = (Image.open(io.BytesIO(base64.b64decode(u.split(",", 1)[1]))).convert("RGB")
            for u in (one, two))
    return a.size == b.size and ImageChops.difference(a, b).getbbox() is None


@dataclass
class DeckJudgeStandIn:
    script: dict[int, str] = field(default_factory=dict)
    bodies: list[dict[str, Any]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.server = LocalServer(self._handle)

    @property
    def url(self) -> str:
        return self.server.url + "/v1"

    def __enter__(self) -> DeckJudgeStandIn:
        self.server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.stop()

    def _handle(self, request: Request) -> Response:
        body = request.json()
        with self._lock:
            index = len(self.bodies)
            self.bodies.append(body)
        reply = self.script.get(index, "ok")
        if reply == "error":
            return Response.json({"error": {"message": "stand-in failure"}}, status=500)
        schema = body["response_format"]["json_schema"]["schema"]
        parts = body["messages"][1]["content"]
        text = "\n".join(p["text"] for p in parts if p["type"] == "text")
        images, label = [], ""
        for part in parts:  # each image follows the text part that names it
            if part["type"] == "text":
                label = part["text"]
            else:
                images.append((label, part["image_url"]["url"]))
        answer: dict[str, Any] = {}
        for axis in (k for k in schema["properties"] if k != "total"):
            answer[axis] = {"rationale": "stand-in", "score": self._score(axis, text, images)}
        answer["total"] = sum(a["score"] for a in answer.values())
        content = "{ not json" if reply == "garbage" else json.dumps(answer)
        return Response.json({"id": f"standin-{index}", "object": "chat.completion",
                              "model": body.get("model"), "created": 0,
                              "choices": [{"index": 0, "finish_reason": "stop", "message": {
                                  "role": "assistant", "content": content}}],
                              "usage": {"prompt_tokens": 10, "completion_tokens": 5,
                                        "total_tokens": 15}})

    @staticmethod
    def _score(axis: str, text: str, images: list[tuple[str, str]]) -> int:
        if axis == "instruction_following" and "(what was asked)" in text:
            asked, done = _lines(ASKED, text), _lines(DONE, text)
            return round(5 * len(asked & done) / len(asked)) if asked else 5
        targets = [url for label, url in images if label.startswith("target slide")]
        edited = [url for label, url in images if label.startswith("edited slide")]
        pairs = list(zip(targets, edited, strict=False))
        return 5 if pairs and all(_same(a, b) for a, b in pairs) else 2
