"""A scripted model server: replays a fixed agent script to real harness CLIs, offline.

It speaks Anthropic Messages, OpenAI Responses and OpenAI Chat Completions, streamed or not, and
answers each call with the next step of a script (write a python-pptx program, run it, finish),
encoded as a tool call in the calling harness's own tools: Claude Code's ``Write``/``Bash``,
Codex's ``apply_patch``/``exec_command`` (or ``shell``), Qwen Code's ``write_file``/
``run_shell_command``. The step is derived from the conversation itself (how many tool calls it
already holds), so retries and helper calls never push the script forward.

Faults can be injected per call (HTTP 400, 429, 500, a malformed or cut stream, a hang), and the
server keeps its own log of what it served, with the tokens it reported in the gateway's
normalised convention (:mod:`refig.gateway.usage`), so tests can compare an attempt record to it.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from refig.gateway.usage import Api, api_of
from refig.httpserver import LocalServer, Request, Response

# --- the script -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class WriteFile:
    """Write ``content`` to ``path`` (relative to the agent's working directory)."""

    path: str
    content: str


@dataclass(frozen=True)
class Run:
    """Run a shell command in the agent's working directory."""

    command: str


@dataclass(frozen=True)
class Finish:
    """End the conversation with a final message."""

    text: str


Action = WriteFile | Run | Finish

SLIDE_PROGRAM = '''"""Rebuild the source figure as one editable slide (refig's scripted model)."""
from pathlib import Path

from PIL import Image
from pptx import Presentation
from pptx.enum.shapes import MSO_CONNECTOR, MSO_SHAPE
from pptx.util import Emu, Pt

source = next(p for p in sorted(Path(".").iterdir())
              if p.suffix.lower() in {".png", ".jpg", ".jpeg"})
width, height = Image.open(source).size
deck = Presentation()
deck.slide_width = Emu(12192000)
deck.slide_height = Emu(int(12192000 * height / width))
slide = deck.slides.add_slide(deck.slide_layouts[6])
unit = deck.slide_width // 12
boxes = []
for column, label in enumerate(["Input", "Model", "Output"]):
    box = slide.shapes.add_shape(MSO_SHAPE.ROUNDED_RECTANGLE, unit * (1 + 4 * column),
                                 deck.slide_height // 3, unit * 2, deck.slide_height // 3)
    box.text_frame.text = label
    box.text_frame.paragraphs[0].runs[0].font.size = Pt(20)
    boxes.append(box)
for left, right in zip(boxes, boxes[1:]):
    arrow = slide.shapes.add_connector(MSO_CONNECTOR.STRAIGHT, 0, 0, 0, 0)
    arrow.begin_connect(left, 3)
    arrow.end_connect(right, 1)
    arrow.line.width = Pt(2)
deck.save("slide.pptx")
print("wrote slide.pptx with", len(slide.shapes), "shapes")
'''

DEFAULT_SCRIPT: tuple[Action, ...] = (
    WriteFile("build_slide.py", SLIDE_PROGRAM),
    Run("python3 build_slide.py"),
    Finish("Done: build_slide.py builds slide.pptx, a single editable slide of the figure."),
)


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


# --- conversation reading -------------------------------------------------------------------------

_CWD_PATTERNS = (
    re.compile(r"Primary working directory: (\S+)"),
    re.compile(r"<cwd>([^<]+)</cwd>"),
    re.compile(r"currently working in the directory: (\S+)"),
)


def _tool_names(api: Api, body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    names: dict[str, dict[str, Any]] = {}
    for tool in body.get("tools") or ():
        if not isinstance(tool, dict):
            continue
        if api is Api.OPENAI_CHAT:
            function = tool.get("function") or {}
            if function.get("name"):
                names[function["name"]] = tool
        elif tool.get("name"):
            names[tool["name"]] = tool
    return names


def _prior_tool_calls(api: Api, body: dict[str, Any]) -> int:
    """How many tool calls the assistant already made in this conversation."""
    count = 0
    if api is Api.ANTHROPIC_MESSAGES:
        for message in body.get("messages") or ():
            if message.get("role") == "assistant" and isinstance(message.get("content"), list):
                count += sum(1 for b in message["content"] if b.get("type") == "tool_use")
    elif api is Api.OPENAI_RESPONSES:
        items = body.get("input")
        for item in items if isinstance(items, list) else ():
            if isinstance(item, dict) and item.get("type") in (
                "function_call", "custom_tool_call", "local_shell_call"
            ):
                count += 1
    else:
        for message in body.get("messages") or ():
            if message.get("role") == "assistant":
                count += len(message.get("tool_calls") or ())
    return count


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _working_directory(body: dict[str, Any], fallback: Path | None) -> str:
    """The agent's working directory as its harness states it in the prompt."""
    for text in _strings({k: v for k, v in body.items() if k != "tools"}):
        for pattern in _CWD_PATTERNS:
            if match := pattern.search(text):
                return match.group(1).rstrip("/")
    return str(fallback) if fallback is not None else "."


def _patch(path: str, content: str) -> str:
    lines = "".join(f"+{line}\n" for line in content.splitlines())
    return f"*** Begin Patch\n*** Add File: {path}\n{lines}*** End Patch\n"


@dataclass
class ToolCall:
    """A step encoded for one harness: a named tool and its arguments (or freeform input)."""

    name: str
    arguments: dict[str, Any] | None = None
    freeform: str | None = None


def encode(action: Action, tools: dict[str, dict[str, Any]], cwd: str) -> tuple[str, ToolCall]:
    """The harness's own tool call for ``action``; returns (tool family, call)."""
    absolute = f"{cwd}/{action.path}" if isinstance(action, WriteFile) else ""
    if isinstance(action, WriteFile):
        if "Write" in tools:
            return "claude-code", ToolCall("Write", {"file_path": absolute,
                                                     "content": action.content})
        if "write_file" in tools:
            return "qwen-code", ToolCall("write_file", {"file_path": absolute,
                                                        "content": action.content})
        if "apply_patch" in tools:
            patch = _patch(action.path, action.content)
            if tools["apply_patch"].get("type") == "custom":
                return "codex", ToolCall("apply_patch", freeform=patch)
            return "codex", ToolCall("apply_patch", {"input": patch})
        action = Run(f"cat > {action.path} <<'REFIG_EOF'\n{action.content}REFIG_EOF")
    assert isinstance(action, Run)
    if "Bash" in tools:
        return "claude-code", ToolCall("Bash", {"command": action.command,
                                                "description": "Run the program"})
    if "run_shell_command" in tools:
        return "qwen-code", ToolCall("run_shell_command", {"command": action.command,
                                                           "is_background": False})
    if "exec_command" in tools:
        return "codex", ToolCall("exec_command", {"cmd": action.command, "workdir": cwd})
    if "shell" in tools:
        return "codex", ToolCall("shell", {"command": ["bash", "-lc", action.command],
                                           "workdir": cwd})
    raise LookupError(f"no known tool to run a command among {sorted(tools)}")


# --- wire formats ---------------------------------------------------------------------------------


@dataclass
class Reply:
    """One answer before encoding: text or a tool call, and the tokens to report."""

    text: str | None
    call: ToolCall | None
    call_id: str
    input_tokens: int
    output_tokens: int
    cached_tokens: int
    cache_write_tokens: int
    reasoning_tokens: int
    model: str


def _anthropic(reply: Reply) -> tuple[list[tuple[str | None, Any]], Any]:
    if reply.call is not None:
        block = {"type": "tool_use", "id": reply.call_id, "name": reply.call.name,
                 "input": reply.call.arguments or {}}
        stop = "tool_use"
    else:
        block = {"type": "text", "text": reply.text or ""}
        stop = "end_turn"
    usage = {"input_tokens": reply.input_tokens - reply.cached_tokens - reply.cache_write_tokens,
             "cache_read_input_tokens": reply.cached_tokens,
             "cache_creation_input_tokens": reply.cache_write_tokens}
    message = {"id": f"msg_{reply.call_id}", "type": "message", "role": "assistant",
               "model": reply.model, "content": [block], "stop_reason": stop,
               "stop_sequence": None, "usage": {**usage, "output_tokens": reply.output_tokens}}
    if block["type"] == "tool_use":
        start_block = {**block, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
    else:
        start_block = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": block["text"]}
    events: list[tuple[str | None, Any]] = [
        ("message_start", {"type": "message_start", "message": {
            **message, "content": [], "stop_reason": None, "usage": {**usage,
                                                                     "output_tokens": 0}}}),
        ("content_block_start", {"type": "content_block_start", "index": 0,
                                 "content_block": start_block}),
        ("ping", {"type": "ping"}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta",
                           "delta": {"stop_reason": stop, "stop_sequence": None},
                           "usage": {"output_tokens": reply.output_tokens}}),
        ("message_stop", {"type": "message_stop"}),
    ]
    return events, message


def _responses(reply: Reply) -> tuple[list[tuple[str | None, Any]], Any]:
    call = reply.call
    if call is None:
        item: dict[str, Any] = {
            "type": "message", "id": f"msg_{reply.call_id}", "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": reply.text or "", "annotations": []}],
        }
    elif call.freeform is not None:
        item = {"type": "custom_tool_call", "id": f"ctc_{reply.call_id}", "status": "completed",
                "call_id": reply.call_id, "name": call.name, "input": call.freeform}
    else:
        item = {"type": "function_call", "id": f"fc_{reply.call_id}", "status": "completed",
                "call_id": reply.call_id, "name": call.name,
                "arguments": json.dumps(call.arguments or {})}
    usage = {"input_tokens": reply.input_tokens,
             "input_tokens_details": {"cached_tokens": reply.cached_tokens},
             "output_tokens": reply.output_tokens,
             "output_tokens_details": {"reasoning_tokens": reply.reasoning_tokens},
             "total_tokens": reply.input_tokens + reply.output_tokens}
    response = {"id": f"resp_{reply.call_id}", "object": "response", "created_at": 0,
                "status": "completed", "model": reply.model, "output": [item], "usage": usage,
                "error": None, "incomplete_details": None}
    pending = {**response, "status": "in_progress", "output": [], "usage": None}
    events: list[tuple[str | None, Any]] = [
        ("response.created", {"type": "response.created", "response": pending}),
        ("response.in_progress", {"type": "response.in_progress", "response": pending}),
        ("response.output_item.added", {"type": "response.output_item.added",
                                        "output_index": 0,
                                        "item": {**item, "status": "in_progress"}}),
    ]
    if item["type"] == "message":
        events.append(("response.output_text.delta", {
            "type": "response.output_text.delta", "item_id": item["id"], "output_index": 0,
            "content_index": 0, "delta": reply.text or ""}))
    elif item["type"] == "function_call":
        events.append(("response.function_call_arguments.delta", {
            "type": "response.function_call_arguments.delta", "item_id": item["id"],
            "output_index": 0, "delta": item["arguments"]}))
    else:
        events.append(("response.custom_tool_call_input.delta", {
            "type": "response.custom_tool_call_input.delta", "item_id": item["id"],
            "output_index": 0, "delta": item["input"]}))
    events += [
        ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0,
                                       "item": item}),
        ("response.completed", {"type": "response.completed", "response": response}),
    ]
    for number, (_, event) in enumerate(events):
        event["sequence_number"] = number
    return events, response


def _chat(reply: Reply) -> tuple[list[tuple[str | None, Any]], Any]:
    call = reply.call
    usage = {"prompt_tokens": reply.input_tokens, "completion_tokens": reply.output_tokens,
             "total_tokens": reply.input_tokens + reply.output_tokens,
             "prompt_tokens_details": {"cached_tokens": reply.cached_tokens},
             "completion_tokens_details": {"reasoning_tokens": reply.reasoning_tokens}}
    head = {"id": f"chatcmpl-{reply.call_id}", "created": 0, "model": reply.model}
    if call is None:
        message: dict[str, Any] = {"role": "assistant", "content": reply.text or ""}
        finish = "stop"
        deltas = [{"role": "assistant", "content": reply.text or ""}]
    else:
        arguments = json.dumps(call.arguments or {})
        message = {"role": "assistant", "content": None, "tool_calls": [{
            "id": reply.call_id, "type": "function",
            "function": {"name": call.name, "arguments": arguments}}]}
        finish = "tool_calls"
        deltas = [
            {"role": "assistant", "content": None, "tool_calls": [{
                "index": 0, "id": reply.call_id, "type": "function",
                "function": {"name": call.name, "arguments": ""}}]},
            {"tool_calls": [{"index": 0, "function": {"arguments": arguments}}]},
        ]
    chunk = {**head, "object": "chat.completion.chunk"}
    events: list[tuple[str | None, Any]] = [
        (None, {**chunk, "choices": [{"index": 0, "delta": d, "finish_reason": None}]})
        for d in deltas
    ]
    events += [
        (None, {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}),
        (None, {**chunk, "choices": [], "usage": usage}),
        (None, "[DONE]"),
    ]
    body = {**head, "object": "chat.completion", "usage": usage,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}]}
    return events, body


_ENCODERS = {Api.ANTHROPIC_MESSAGES: _anthropic, Api.OPENAI_RESPONSES: _responses,
             Api.OPENAI_CHAT: _chat}


def _error_body(api: Api, status: int) -> dict[str, Any]:
    kinds = {400: ("invalid_request_error", "scripted bad request"),
             429: ("rate_limit_error", "scripted rate limit"),
             500: ("api_error", "scripted internal error")}
    kind, message = kinds[status]
    if api is Api.ANTHROPIC_MESSAGES:
        return {"type": "error", "error": {"type": kind, "message": message}}
    return {"error": {"type": kind, "code": kind, "message": message, "param": None}}


# --- the server -----------------------------------------------------------------------------------


@dataclass
class ScriptedModel:
    """The request handler: script, faults, and the log of what was served."""

    script: Sequence[Action] = DEFAULT_SCRIPT
    faults: Sequence[Fault] = ()
    workspace: Path | None = None
    model: str | None = None
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
        tools = _tool_names(api, body)
        prior = _prior_tool_calls(api, body)
        step = min(prior, len(self.script) - 1)
        action: Action = self.script[step] if tools else Finish("ok")
        family = "none"
        call: ToolCall | None = None
        if not isinstance(action, Finish):
            try:
                family, call = encode(action, tools, _working_directory(body, self.workspace))
            except LookupError as exc:
                action = Finish(f"scripted model: {exc}")
        # Deterministic token counts that differ from call to call.
        input_tokens = max(1, size // 4)
        cached = (input_tokens // 2) if prior else 0
        cache_write = (input_tokens // 10) if api is Api.ANTHROPIC_MESSAGES and not prior else 0
        reasoning = 0 if api is Api.ANTHROPIC_MESSAGES else 5 + step
        text = None if call is not None else action.text  # type: ignore[union-attr]
        payload = json.dumps(call.arguments or call.freeform) if call else (text or "")
        reply = Reply(text=text, call=call, call_id=f"refig{index:04d}",
                      input_tokens=input_tokens, output_tokens=reasoning + 1 + len(payload) // 4,
                      cached_tokens=cached, cache_write_tokens=cache_write,
                      reasoning_tokens=reasoning, model=self.model or body.get("model") or "")
        events, whole = _ENCODERS[api](reply)
        served = Served(index=index, api=api.value, tools=family, model=reply.model, stream=stream,
                        step=step, action=type(action).__name__, status=200, fault=fault,
                        completed=True, input_tokens=reply.input_tokens,
                        output_tokens=reply.output_tokens, cached_tokens=reply.cached_tokens,
                        cache_write_tokens=reply.cache_write_tokens,
                        reasoning_tokens=reply.reasoning_tokens)
        if fault in ("400", "429", "500"):
            status = int(fault)
            headers = {"retry-after": "0"} if status == 429 else {}
            return (Response.json(_error_body(api, status), status=status, headers=headers),
                    _failed(served, status))
        if fault == "hang":
            return Response.json(whole, delay=3600.0), _failed(served, 200)
        if fault in ("malformed", "cut") and not stream:
            # Half the JSON body: cut (the connection drops) or malformed (it ends there).
            text = json.dumps(whole).encode()
            half = text[: len(text) // 2]
            json_type = {"Content-Type": "application/json"}
            if fault == "cut":
                return (Response(headers=json_type, chunks=[half, text[len(half):]], cut_after=1),
                        _failed(served, 200))
            return Response(headers=json_type, body=half), _failed(served, 200)
        if fault in ("malformed", "cut"):
            # Only the first event goes out intact; what it reported is what the server reported.
            first = events[:1]
            broken = _failed(served, 200, **_reported(api, first))
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
    return Served(**{**served.__dict__, "status": status, "completed": False,
                     "input_tokens": 0, "output_tokens": 0, "cached_tokens": 0,
                     "cache_write_tokens": 0, "reasoning_tokens": 0, **tokens})


def _reported(api: Api, events: Iterable[tuple[str | None, Any]]) -> dict[str, int]:
    """Tokens the given events report, normalised (only Anthropic reports any up front)."""
    for _, event in events:
        if api is Api.ANTHROPIC_MESSAGES and isinstance(event, dict):
            usage = event.get("message", {}).get("usage", {})
            read = usage.get("cache_read_input_tokens", 0)
            write = usage.get("cache_creation_input_tokens", 0)
            return {"input_tokens": usage.get("input_tokens", 0) + read + write,
                    "cached_tokens": read, "cache_write_tokens": write,
                    "output_tokens": usage.get("output_tokens", 0)}
    return {}


class ScriptedServer(LocalServer):
    """A stand-in server answering with a :class:`ScriptedModel`; ``.model`` keeps its log."""

    def __init__(self, script: Sequence[Action] = DEFAULT_SCRIPT, *,
                 faults: Sequence[Fault] = (), workspace: Path | None = None,
                 model: str | None = None, port: int = 0):
        self.model = ScriptedModel(script=script, faults=faults, workspace=workspace, model=model)
        super().__init__(self.model, port=port, keep_requests=True)

    @property
    def served(self) -> list[Served]:
        return self.model.served
