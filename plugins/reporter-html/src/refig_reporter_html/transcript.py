"""An attempt's transcript as a conversation: model turns, tool calls and results, the images the
agent looked at, and the error that ended it.

Read from what the attempt stored: the harness CLI's JSON lines (Claude Code and Qwen Code
``stream-json``; Codex ``exec --json``; any other JSON lines are shown as events) and the recording
gateway's ``calls.jsonl`` (tokens, latency and cost per model call). Everything here is untrusted
agent output: sizes are bounded and the templates escape every string.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import ValidationError
from refig_toolkit_agent import ModelCall

#: Bytes of a transcript read at most; the rest is reported as cut.
MAX_TRANSCRIPT_BYTES = 16 << 20
#: Characters of one text block shown; longer ones are cut with a note.
MAX_TEXT = 20_000
#: Decoded bytes of one image the agent looked at that are inlined into the page.
MAX_IMAGE_BYTES = 2 << 20
MAX_STEPS = 5_000
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
_BASE64 = re.compile(r"^[A-Za-z0-9+/]*={0,2}$")

Kind = Literal["text", "thinking", "tool_call", "tool_result", "image", "error", "event"]
Role = Literal["model", "tool", "system", "error"]


@dataclass
class Block:
    """One piece of a step: text, a tool call or result, an image (a checked data URL)."""

    kind: Kind
    text: str = ""
    title: str = ""
    image: str | None = None
    failed: bool = False


@dataclass
class Step:
    """One step of the conversation; a model step may carry its call's tokens and latency."""

    role: Role
    blocks: list[Block] = field(default_factory=list)
    input_tokens: int | None = None
    output_tokens: int | None = None
    latency_seconds: float | None = None
    call_index: int | None = None


@dataclass
class Conversation:
    """The steps, the transcript's format, the gateway's calls and whether anything was cut."""

    steps: list[Step]
    format: str
    calls: list[ModelCall]
    cut: bool = False

    @property
    def model_steps(self) -> int:
        return sum(s.role == "model" for s in self.steps)


def _text(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, indent=1, ensure_ascii=False)
    if len(text) > MAX_TEXT:
        return text[:MAX_TEXT] + f"\n… ({len(text) - MAX_TEXT:,} more characters not shown)"
    return text


def image_data_url(media_type: Any, data: Any) -> str | None:
    """A data URL for a base64 image the agent was shown, or None when it is not a safe image."""
    if media_type not in IMAGE_TYPES or not isinstance(data, str):
        return None
    if len(data) > MAX_IMAGE_BYTES * 4 // 3 + 4 or not _BASE64.match(data):
        return None
    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None
    return f"data:{media_type};base64,{data}"


def _events(raw: bytes) -> Iterator[dict[str, Any] | str]:
    for line in raw.decode("utf-8", errors="replace").splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            event = json.loads(line)
        except ValueError:
            yield line
            continue
        yield event if isinstance(event, dict) else line


def _claude_content(blocks: Any) -> Iterator[Block]:
    for block in blocks if isinstance(blocks, list) else [{"type": "text", "text": blocks}]:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            yield Block("text", _text(block.get("text", "")))
        elif kind in ("thinking", "redacted_thinking"):
            yield Block("thinking", _text(block.get("thinking", "")))
        elif kind == "tool_use":
            yield Block("tool_call", _text(block.get("input", {})), title=str(block.get("name")))
        elif kind == "tool_result":
            content = block.get("content")
            parts = content if isinstance(content, list) else [{"type": "text", "text": content}]
            failed = bool(block.get("is_error"))
            for part in parts:
                if isinstance(part, dict) and part.get("type") == "image":
                    source = part.get("source") or {}
                    url = image_data_url(source.get("media_type"), source.get("data"))
                    yield Block("image", "image shown to the agent" if url else
                                "an image the viewer does not inline (type or size)", image=url)
                elif isinstance(part, dict):
                    yield Block("tool_result", _text(part.get("text", "")), failed=failed)
        elif kind == "image":
            source = block.get("source") or {}
            url = image_data_url(source.get("media_type"), source.get("data"))
            yield Block("image", "image shown to the agent", image=url)


def _claude(events: Iterable[dict[str, Any] | str]) -> list[Step]:
    """Claude Code and Qwen Code ``stream-json``: one model step per message id."""
    steps: list[Step] = []
    current_id: object = None
    for event in events:
        if isinstance(event, str):
            steps.append(Step("system", [Block("event", _text(event))]))
            continue
        kind = event.get("type")
        message = event.get("message") if isinstance(event.get("message"), dict) else {}
        if kind == "assistant":
            blocks = list(_claude_content(message.get("content")))
            usage = message.get("usage") if isinstance(message.get("usage"), dict) else {}
            if steps and message.get("id") is not None and message.get("id") == current_id:
                steps[-1].blocks.extend(blocks)
            else:
                steps.append(Step("model", blocks))
            current_id = message.get("id")
            if usage:
                steps[-1].input_tokens = _tokens(usage, "input_tokens", "cache_read_input_tokens",
                                                 "cache_creation_input_tokens")
                steps[-1].output_tokens = _tokens(usage, "output_tokens")
        elif kind == "user":
            current_id = None
            steps.append(Step("tool", list(_claude_content(message.get("content")))))
        elif kind == "system":
            detail = ", ".join(f"{k} {event[k]}" for k in ("subtype", "model") if k in event)
            steps.append(Step("system", [Block("event", detail, title="system")]))
        elif kind == "result":
            failed = bool(event.get("is_error")) or event.get("subtype") != "success"
            summary = ", ".join(f"{k} {event[k]}" for k in
                                ("subtype", "num_turns", "total_cost_usd", "duration_ms")
                                if k in event)
            text = _text(event.get("result") or "") if failed else summary
            steps.append(Step("error" if failed else "system",
                              [Block("error" if failed else "event", text, title="result",
                                     failed=failed)]))
    return steps


def _codex_item(item: dict[str, Any]) -> Step | None:
    kind = item.get("type")
    if kind == "agent_message":
        return Step("model", [Block("text", _text(item.get("text", "")))])
    if kind == "reasoning":
        return Step("model", [Block("thinking", _text(item.get("text", "")))])
    if kind == "command_execution":
        code = item.get("exit_code")
        return Step("tool", [
            Block("tool_call", _text(item.get("command", "")), title="command"),
            Block("tool_result", _text(item.get("aggregated_output", "")),
                  title=f"exit code {code}", failed=code not in (0, None)),
        ])
    if kind == "file_change":
        changes = item.get("changes") if isinstance(item.get("changes"), list) else []
        lines = [f"{c.get('kind')} {c.get('path')}" for c in changes if isinstance(c, dict)]
        return Step("tool", [Block("tool_call", _text("\n".join(lines)), title="file change")])
    if kind == "error":
        return Step("error", [Block("error", _text(item.get("message", "")), failed=True)])
    if kind is None:
        return None
    body = {k: v for k, v in item.items() if k not in ("id", "type", "status")}
    return Step("tool", [Block("tool_call", _text(body), title=str(kind))])


def _codex(events: Iterable[dict[str, Any] | str]) -> list[Step]:
    """Codex ``exec --json``: completed items, turn usage and failures."""
    steps: list[Step] = []
    for event in events:
        if isinstance(event, str):
            steps.append(Step("system", [Block("event", _text(event))]))
            continue
        kind = event.get("type")
        if kind == "item.completed" and isinstance(event.get("item"), dict):
            step = _codex_item(event["item"])
            if step is not None:
                steps.append(step)
        elif kind == "turn.completed":
            usage = event.get("usage") if isinstance(event.get("usage"), dict) else {}
            step = Step("system", [Block("event", "turn completed", title="turn")])
            step.input_tokens = _tokens(usage, "input_tokens")
            step.output_tokens = _tokens(usage, "output_tokens")
            steps.append(step)
        elif kind in ("turn.failed", "error"):
            error = event.get("error") if isinstance(event.get("error"), dict) else event
            steps.append(Step("error", [Block("error", _text(error.get("message", "")),
                                              title=str(kind), failed=True)]))
    return steps


def _generic(events: Iterable[dict[str, Any] | str]) -> list[Step]:
    """Any other JSON lines (a baseline's progress, an unknown CLI): one event per line."""
    steps = []
    for event in events:
        title = str(event.get("type") or event.get("event") or "") if isinstance(event, dict) \
            else ""
        steps.append(Step("system", [Block("event", _text(event), title=title)]))
    return steps


def _tokens(usage: dict[str, Any], *names: str) -> int:
    return sum(int(v) for n in names if isinstance(v := usage.get(n), int | float))


def _format(first: list[dict[str, Any] | str]) -> str:
    types = {e.get("type") for e in first if isinstance(e, dict)}
    if types & {"thread.started", "turn.started", "item.completed"}:
        return "codex"
    if types & {"assistant", "user"} or any(
            isinstance(e, dict) and e.get("type") == "system" and "session_id" in e
            for e in first):
        return "stream-json"
    return "lines"


def read_calls(raw: bytes | None) -> list[ModelCall]:
    """The gateway's calls; lines that do not parse are skipped (the file is the run's own)."""
    calls = []
    for line in (raw or b"").decode("utf-8", errors="replace").splitlines():
        try:
            calls.append(ModelCall.model_validate_json(line))
        except ValidationError:
            continue
    return calls


def conversation(transcript: bytes | None, calls: bytes | None) -> Conversation:
    """Parse a stored transcript (bounded) and attach the gateway's per-call numbers.

    When the transcript has as many model steps as the gateway saw completed model calls, the
    n-th step is the n-th call and shows its tokens and latency; otherwise the calls are listed on
    their own rather than guessed at.
    """
    raw = transcript or b""
    cut = len(raw) > MAX_TRANSCRIPT_BYTES
    events = list(_events(raw[:MAX_TRANSCRIPT_BYTES]))
    fmt = _format(events[:20])
    steps = {"codex": _codex, "stream-json": _claude}.get(fmt, _generic)(events)
    if len(steps) > MAX_STEPS:
        steps, cut = steps[:MAX_STEPS], True
    recorded = read_calls(calls)
    completed = [c for c in recorded if c.is_model_call and c.ok]
    model = [s for s in steps if s.role == "model"]
    if fmt == "stream-json" and model and len(model) == len(completed):
        for step, call in zip(model, completed, strict=True):
            step.input_tokens, step.output_tokens = call.input_tokens, call.output_tokens
            step.latency_seconds, step.call_index = call.latency_seconds, call.index
    return Conversation(steps, fmt, recorded, cut)
