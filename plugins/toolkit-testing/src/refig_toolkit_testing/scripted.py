"""A scripted model server: replays a fixed agent script to real harness CLIs, offline.

It speaks Anthropic Messages, OpenAI Responses and OpenAI Chat Completions, streamed or not, and
answers each call with the next step of a script (write a python-pptx program, run it, finish),
encoded as a tool call in the calling harness's own tools: Claude Code's ``Write``/``Bash``,
Codex's ``apply_patch``/``exec_command`` (or ``shell``), Qwen Code's ``write_file``/
``run_shell_command``. The step is derived from the conversation itself (how many tool calls it
already holds), so retries and helper calls never push the script forward.

Faults can be injected per call (HTTP 400, 429, 500, a malformed or cut stream, a hang), and the
server keeps its own log of what it served, with the tokens it reported in the gateway's
normalised convention (:mod:`refig_toolkit_agent.gateway.usage`), so tests can compare an
attempt record to it.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from refig_toolkit_agent.gateway.usage import Api, api_of
from refig_toolkit_agent.httpserver import LocalServer, Request, Response

from refig_toolkit_testing.script import (
    DEFAULT_SCRIPT,
    SLIDE_PROGRAM,
    Action,
    Finish,
    Run,
    ToolCall,
    WriteFile,
    encode,
    prior_tool_calls,
    tool_names,
    working_directory,
)
from refig_toolkit_testing.wire import ENCODERS, Reply, error_body, reported

__all__ = [
    "DEFAULT_SCRIPT",
    "FAULTS",
    "SLIDE_PROGRAM",
    "Action",
    "Fault",
    "Finish",
    "Run",
    "ScriptedModel",
    "ScriptedServer",
    "Served",
    "WriteFile",
    "encode",
]

# --- faults and the served log --------------------------------------------------------------------

FAULTS = ("400", "429", "500", "malformed", "cut", "hang")


@dataclass(frozen=True)
class Fault:
    """Answer model calls ``calls`` (0-based indices; None means every call) with a failure."""

    kind: str
    calls: frozenset[int] | None = None

    def __post_init__(self) -> None:
        if self.kind not in FAULTS:
            raise ValueError(f"unknown fault {self.kind!r}; faults: {', '.join(FAULTS)}")

    def applies(self, index: int) -> bool:
        return self.calls is None or index in self.calls


@dataclass(frozen=True)
class Served:
    """One model call as the scripted server answered it.

    Tokens are those the server reported, in the normalised convention: ``input_tokens``
    includes cached and cache-written tokens, ``output_tokens`` includes reasoning tokens.
    """

    index: int
    api: str
    tools: str
    model: str | None
    stream: bool
    step: int
    action: str
    status: int
    fault: str | None
    completed: bool
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0


# --- the server -----------------------------------------------------------------------------------


@dataclass
class ScriptedModel:
    """The request handler: script, faults, and the log of what was served."""

    script: Sequence[Action] = DEFAULT_SCRIPT
    faults: Sequence[Fault] = ()
    workspace: Path | None = None
    model: str | None = None
    #: The text a call that offers no tools is answered with (a single-answer model harness).
    answer: str = "ok"
    #: The ``Retry-After`` header of a scripted 429, in seconds.
    retry_after: float = 0.0
    served: list[Served] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __call__(self, request: Request) -> Response:
        api = api_of(request.method, request.path)
        if api is Api.OTHER:
            if request.path.split("?", 1)[0].rstrip("/").endswith("/models"):
                return Response.json({"object": "list", "data": [
                    {"id": self.model or "scripted", "object": "model", "owned_by": "refig"}]})
            return Response.json({"error": {"type": "not_found", "message": request.path}}, 404)
        try:
            body = request.json()
        except ValueError:
            body = {}
        body = body if isinstance(body, dict) else {}
        with self._lock:
            index = len(self.served)
            fault = next((f.kind for f in self.faults if f.applies(index)), None)
            response, served = self._answer(api, body, index, fault, len(request.body))
            self.served.append(served)
        return response

    def _answer(self, api: Api, body: dict[str, Any], index: int, fault: str | None,
                size: int) -> tuple[Response, Served]:
        stream = bool(body.get("stream"))
        tools = tool_names(api, body)
        prior = prior_tool_calls(api, body)
        step = min(prior, len(self.script) - 1)
        action: Action = self.script[step] if tools else Finish(self.answer)
        family = "none"
        call: ToolCall | None = None
        if not isinstance(action, Finish):
            try:
                family, call = encode(action, tools, working_directory(body, self.workspace))
            except LookupError as exc:
                action = Finish(f"scripted model: {exc}")
        # Deterministic token counts that differ from call to call.
        input_tokens = max(1, size // 4)
        cached = (input_tokens // 2) if prior else 0
        cache_write = (input_tokens // 10) if api is Api.ANTHROPIC_MESSAGES and not prior else 0
        reasoning = 0 if api is Api.ANTHROPIC_MESSAGES else 5 + step
        text = action.text if isinstance(action, Finish) else None  # Finish: no tool call
        payload = json.dumps(call.arguments or call.freeform) if call else (text or "")
        reply = Reply(text=text, call=call, call_id=f"refig{index:04d}",
                      input_tokens=input_tokens, output_tokens=reasoning + 1 + len(payload) // 4,
                      cached_tokens=cached, cache_write_tokens=cache_write,
                      reasoning_tokens=reasoning, model=self.model or body.get("model") or "")
        events, whole = ENCODERS[api](reply)
        served = Served(index=index, api=api.value, tools=family, model=reply.model, stream=stream,
                        step=step, action=type(action).__name__, status=200, fault=fault,
                        completed=True, input_tokens=reply.input_tokens,
                        output_tokens=reply.output_tokens, cached_tokens=reply.cached_tokens,
                        cache_write_tokens=reply.cache_write_tokens,
                        reasoning_tokens=reply.reasoning_tokens)
        if fault in ("400", "429", "500"):
            status = int(fault)
            headers = {"retry-after": f"{self.retry_after:g}"} if status == 429 else {}
            return (Response.json(error_body(api, status), status=status, headers=headers),
                    _failed(served, status))
        if fault == "hang":
            return Response.json(whole, delay=3600.0), _failed(served, 200)
        if fault in ("malformed", "cut") and not stream:
            # Half the JSON body: cut (the connection drops) or malformed (it ends there).
            data = json.dumps(whole).encode()
            half = data[: len(data) // 2]
            json_type = {"Content-Type": "application/json"}
            if fault == "cut":
                return (Response(headers=json_type, chunks=[half, data[len(half):]], cut_after=1),
                        _failed(served, 200))
            return Response(headers=json_type, body=half), _failed(served, 200)
        if fault in ("malformed", "cut"):
            # Only the first event goes out intact; what it reported is what the server reported.
            first = events[:1]
            broken = _failed(served, 200, **reported(api, first))
            if fault == "cut":
                return Response.sse([*first, *events[1:]], cut_after=1), broken
            return Response.sse([*first, (first[0][0], "{not json")]), broken
        if stream:
            return Response.sse(events), served
        return Response.json(whole), served

    def totals(self) -> dict[str, int]:
        """Turns (completed calls) and token sums over everything served."""
        return {
            "turns": sum(1 for s in self.served if s.completed),
            "input_tokens": sum(s.input_tokens for s in self.served),
            "output_tokens": sum(s.output_tokens for s in self.served),
            "cached_tokens": sum(s.cached_tokens for s in self.served),
            "reasoning_tokens": sum(s.reasoning_tokens for s in self.served),
        }


def _failed(served: Served, status: int, **tokens: int) -> Served:
    fields: dict[str, Any] = {**served.__dict__, "status": status, "completed": False,
                              "input_tokens": 0, "output_tokens": 0, "cached_tokens": 0,
                              "cache_write_tokens": 0, "reasoning_tokens": 0, **tokens}
    return Served(**fields)


class ScriptedServer(LocalServer):
    """A stand-in server answering with a :class:`ScriptedModel`; ``.model`` keeps its log."""

    def __init__(self, script: Sequence[Action] = DEFAULT_SCRIPT, *,
                 faults: Sequence[Fault] = (), workspace: Path | None = None,
                 model: str | None = None, answer: str = "ok", retry_after: float = 0.0,
                 port: int = 0):
        self.model = ScriptedModel(script=script, faults=faults, workspace=workspace, model=model,
                                   answer=answer, retry_after=retry_after)
        super().__init__(self.model, port=port, keep_requests=True)

    @property
    def served(self) -> list[Served]:
        return self.model.served
