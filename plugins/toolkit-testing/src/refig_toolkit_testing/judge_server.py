"""An OpenAI chat-completions stand-in that answers rubric judgments, on a script.

It reads the JSON schema from the request's ``response_format`` and answers with scores that fit
it, or with what a test asks for: invalid JSON, an out-of-range score, a wrong total, a 429 with
``Retry-After``, a 500, an answer slower than the client's timeout. It can also emulate a
provider's capacity (a 429 when too many calls are in flight) and random 429s, for benchmarks.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from refig.plugin import Artifact, GateResult
from refig_toolkit_agent.httpserver import LocalServer, Request, Response
from refig_toolkit_pptx.objects import Endpoint, ObjectKind, ObjectTree, Rect, SlideObject


class Reply(StrEnum):
    """What the stand-in answers to one call."""

    OK = "ok"
    GARBAGE = "garbage"
    OUT_OF_RANGE = "out_of_range"
    WRONG_TOTAL = "wrong_total"
    RATE_LIMITED = "rate_limited"
    SERVER_ERROR = "server_error"
    UNAUTHORIZED = "unauthorized"
    SLOW = "slow"


Script = Callable[[dict[str, Any], int], Reply]


def scripted(replies: Sequence[Reply | str]) -> Script:
    """Answer the first calls with ``replies`` in order, then OK."""
    queue = [Reply(r) for r in replies]

    def script(body: dict[str, Any], index: int) -> Reply:
        return queue[index] if index < len(queue) else Reply.OK

    return script


def answer_for(schema: dict[str, Any], fraction: float) -> dict[str, Any]:
    """A valid answer to a rubric schema: each axis ``floor(max * fraction)``, total the sum."""
    answer: dict[str, Any] = {}
    for name, prop in schema.get("properties", {}).items():
        if prop.get("type") == "object":
            top = prop["properties"]["score"].get("maximum", 10)
            answer[name] = {"rationale": f"stand-in: {fraction:.0%} of {name}",
                            "score": math.floor(top * fraction)}
    answer["total"] = sum(item["score"] for item in answer.values())
    return answer


def images_in(body: dict[str, Any]) -> list[str]:
    """The data URLs of every image in the request's messages."""
    urls = []
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, list):
            urls += [part["image_url"]["url"] for part in content
                     if part.get("type") == "image_url"]
    return urls


@dataclass
class JudgeStandIn:
    """Serve judgments on 127.0.0.1; ``url`` is the ``api_base`` to give a judge.

    ``script(body, index)`` picks each call's reply (``index`` counts calls from 0). ``capacity``
    answers 429 while more than that many calls are in flight; ``random_429`` is the share of
    calls refused at random (seeded). Call ``i`` arrived at ``times[i]`` with ``bodies[i]`` and
    got ``replies[i]``.
    """

    script: Script = field(default=lambda body, index: Reply.OK)
    latency: float = 0.0
    fraction: float = 0.7
    retry_after: float = 1.0
    slow_seconds: float = 5.0
    capacity: int | None = None
    random_429: float = 0.0
    seed: int = 0
    prompt_tokens: int = 1000
    completion_tokens: int = 200
    bodies: list[dict[str, Any]] = field(default_factory=list)
    replies: list[Reply] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    max_in_flight: int = 0
    _in_flight: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _server: LocalServer | None = None
    _random: random.Random = field(default_factory=random.Random)

    def __post_init__(self) -> None:
        self._random.seed(self.seed)
        self._server = LocalServer(self._handle)

    @property
    def url(self) -> str:
        """The OpenAI-style base URL (ends in ``/v1``)."""
        assert self._server is not None
        return self._server.url + "/v1"

    @property
    def calls(self) -> int:
        return len(self.bodies)

    def start(self) -> JudgeStandIn:
        assert self._server is not None
        self._server.start()
        return self

    def stop(self) -> None:
        assert self._server is not None
        self._server.stop()

    def __enter__(self) -> JudgeStandIn:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def count(self, reply: Reply | str) -> int:
        """How many calls got ``reply``."""
        return sum(1 for r in self.replies if r == reply)

    def _decide(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            index = len(self.bodies)
            self.bodies.append(body)
            self.times.append(time.time())
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
            over = self.capacity is not None and self._in_flight > self.capacity
            unlucky = self.random_429 > 0 and self._random.random() < self.random_429
            reply = Reply.RATE_LIMITED if over or unlucky else self.script(body, index)
            self.replies.append(reply)
            return reply

    def stats(self) -> dict[str, Any]:
        """Calls, replies by kind and the most calls in flight at once (also ``GET /stats``)."""
        with self._lock:
            counts = {reply.value: self.replies.count(reply) for reply in Reply}
            return {"calls": len(self.bodies), "replies": counts,
                    "max_in_flight": self.max_in_flight}

    def _handle(self, request: Request) -> Response:
        if request.method == "GET" and request.path.rstrip("/").endswith("/stats"):
            return Response.json(self.stats())
        if not request.path.rstrip("/").endswith("/chat/completions"):
            return Response.json({"error": {"message": "not found"}}, status=404)
        body = request.json()
        reply = self._decide(body)
        try:
            return self._answer(body, reply)
        finally:
            with self._lock:
                self._in_flight -= 1

    def _answer(self, body: dict[str, Any], reply: Reply) -> Response:
        if reply is Reply.RATE_LIMITED:
            seconds = self.retry_after
            headers = {"Retry-After": str(math.ceil(seconds)),
                       "retry-after-ms": str(round(seconds * 1000))}
            return Response.json({"error": {"message": "Rate limit reached (stand-in)",
                                            "type": "rate_limit_exceeded"}},
                                 status=429, headers=headers)
        if reply is Reply.UNAUTHORIZED:
            return Response.json({"error": {"message": "Incorrect API key provided (stand-in)",
                                            "type": "invalid_request_error"}}, status=401)
        if reply is Reply.SERVER_ERROR:
            time.sleep(self.latency)
            return Response.json({"error": {"message": "internal error (stand-in)"}}, status=500)
        if reply is Reply.SLOW:
            time.sleep(self.slow_seconds)
        time.sleep(self.latency)
        schema = (body.get("response_format") or {}).get("json_schema", {}).get("schema")
        if schema is None or len(images_in(body)) < 2:
            return Response.json({"error": {"message": "expected two images and a json_schema "
                                            "response_format"}}, status=400)
        answer = answer_for(schema, self.fraction)
        if reply is Reply.OUT_OF_RANGE:
            first = next(k for k in answer if k != "total")
            answer[first]["score"] += 1000
            answer["total"] += 1000
        elif reply is Reply.WRONG_TOTAL:
            answer["total"] += 7
        content = "{ this is not json" if reply is Reply.GARBAGE else json.dumps(answer)
        return Response.json({
            "id": f"chatcmpl-standin-{len(self.bodies)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "stand-in"),
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": self.prompt_tokens,
                      "completion_tokens": self.completion_tokens,
                      "total_tokens": self.prompt_tokens + self.completion_tokens},
        })


def sample_artifacts(directory: Path, count: int, *, flattened: Sequence[int] = (),
                     size: tuple[int, int] = (96, 64)) -> list[Artifact]:
    """``count`` small artifacts that passed the gate, each with a source, a rendering, a tree
    and metric values (those in ``flattened`` carry the flattening flag), for judge tests."""
    from PIL import Image, ImageDraw

    directory.mkdir(parents=True, exist_ok=True)
    source = directory / "source.png"
    image = Image.new("RGB", size, "white")
    ImageDraw.Draw(image).rectangle((10, 10, 40, 30), outline="black")
    image.save(source)
    artifacts = []
    for index in range(count):
        render = directory / f"render-{index}.png"
        shade = Image.new("RGB", size, (255 - index % 200, 250, 245))
        ImageDraw.Draw(shade).rectangle((12, 10, 42, 30 + index % 7), outline="navy")
        shade.save(render)
        box = SlideObject(id=2, kind=ObjectKind.AUTO_SHAPE, text=f"Encoder {index}",
                          rect=Rect(x=0, y=0, w=100, h=50))
        link = SlideObject(id=3, kind=ObjectKind.CONNECTOR, start=Endpoint(shape_id=2, site=0),
                           end=Endpoint(shape_id=4, site=1), end_arrow="triangle")
        target = SlideObject(id=4, kind=ObjectKind.AUTO_SHAPE, text="Decoder",
                             rect=Rect(x=200, y=0, w=100, h=50))
        tree = ObjectTree(slide_width=12192000, slide_height=6858000,
                          objects=(box, link, target))
        flag = 1.0 if index in flattened else 0.0
        artifacts.append(Artifact(
            path=directory / f"slide-{index}.pptx",
            sha256=hashlib.sha256(f"artifact {index}".encode()).hexdigest(),
            gate=GateResult(passed=True, slides=1),
            family="figure-to-slide",
            structure=tree,
            pages=(render,),
            references={"figure": source},
            metrics={"flattening.flattened": flag, "flattening.raster_area_ratio": flag},
        ))
    return artifacts
