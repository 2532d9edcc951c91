"""Read tokens, model and completeness out of a model API response, streamed (SSE) or not.

Three wire formats: Anthropic Messages, OpenAI Responses and OpenAI Chat Completions. Tokens are
normalised to one convention: ``input`` counts every prompt token (cached and cache-written ones
included), ``cached`` the ones read from the cache, ``cache_write`` the ones written to it,
``output`` every generated token (reasoning included), ``reasoning`` the reasoning share.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Api(StrEnum):
    """The model APIs the gateway understands."""

    ANTHROPIC_MESSAGES = "anthropic-messages"
    OPENAI_RESPONSES = "openai-responses"
    OPENAI_CHAT = "openai-chat"
    OTHER = "other"


def api_of(method: str, path: str) -> Api:
    """Which model API a request is a call of; ``OTHER`` for anything that is not a model call."""
    route = path.split("?", 1)[0].rstrip("/")
    if method != "POST":
        return Api.OTHER
    if route.endswith("/v1/messages") or route == "/messages":
        return Api.ANTHROPIC_MESSAGES
    if route.endswith("/responses"):
        return Api.OPENAI_RESPONSES
    if route.endswith("/chat/completions"):
        return Api.OPENAI_CHAT
    return Api.OTHER


@dataclass
class Tokens:
    """Token counts of one call, in the normalised convention of this module."""

    input: int = 0
    output: int = 0
    cached: int = 0
    cache_write: int = 0
    reasoning: int = 0


@dataclass
class Parsed:
    """What a response says about itself.

    ``complete`` is False for a stream that ended before its final event; ``error`` holds a typed
    kind (``stream_error`` for a cut stream, ``malformed_response`` for
    unreadable data, ``rate_limited``...) when the body reports a failure.
    """

    tokens: Tokens = field(default_factory=Tokens)
    reported: bool = False
    model: str | None = None
    complete: bool = False
    error: str | None = None
    message: str = ""


def _int(value: Any) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


def anthropic_tokens(usage: dict[str, Any]) -> Tokens:
    read = _int(usage.get("cache_read_input_tokens"))
    write = _int(usage.get("cache_creation_input_tokens"))
    details = usage.get("output_tokens_details") or {}
    return Tokens(
        input=_int(usage.get("input_tokens")) + read + write,
        output=_int(usage.get("output_tokens")),
        cached=read,
        cache_write=write,
        reasoning=_int(details.get("thinking_tokens") or details.get("reasoning_tokens")),
    )


def responses_tokens(usage: dict[str, Any]) -> Tokens:
    inp = usage.get("input_tokens_details") or {}
    out = usage.get("output_tokens_details") or {}
    return Tokens(
        input=_int(usage.get("input_tokens")),
        output=_int(usage.get("output_tokens")),
        cached=_int(inp.get("cached_tokens")),
        reasoning=_int(out.get("reasoning_tokens")),
    )


def chat_tokens(usage: dict[str, Any]) -> Tokens:
    inp = usage.get("prompt_tokens_details") or {}
    out = usage.get("completion_tokens_details") or {}
    return Tokens(
        input=_int(usage.get("prompt_tokens")),
        output=_int(usage.get("completion_tokens")),
        cached=_int(inp.get("cached_tokens")),
        reasoning=_int(out.get("reasoning_tokens")),
    )


# Provider error types (Anthropic ``error.type``, OpenAI ``error.code``/``type``) -> refig kinds.
_ERROR_TYPES = {
    "rate_limit_error": "rate_limited",
    "rate_limit_exceeded": "rate_limited",
    "insufficient_quota": "rate_limited",
    "overloaded_error": "api_error",
    "api_error": "api_error",
    "server_error": "api_error",
    "invalid_request_error": "bad_request",
    "authentication_error": "auth_error",
    "permission_error": "auth_error",
}


def _error_kind(error: Any) -> str:
    if isinstance(error, dict):
        for key in ("type", "code"):
            if (kind := _ERROR_TYPES.get(str(error.get(key)))) is not None:
                return kind
    return "api_error"


def _message(error: Any) -> str:
    if isinstance(error, dict):
        return str(error.get("message") or error.get("type") or error)[:500]
    return str(error)[:500]


def sse_events(body: bytes) -> list[tuple[str | None, str]]:
    """``(event name, data)`` of each server-sent event in ``body``, in order."""
    events: list[tuple[str | None, str]] = []
    text = body.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    for block in text.split("\n\n"):
        name: str | None = None
        data: list[str] = []
        for line in block.split("\n"):
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].removeprefix(" "))
        if data:
            events.append((name, "\n".join(data)))
    return events


def parse_json(api: Api, payload: Any) -> Parsed:
    """A non-streamed response body."""
    parsed = Parsed(complete=True)
    if not isinstance(payload, dict):
        return Parsed(error="api_error", message="response body is not a JSON object")
    if payload.get("error"):
        return Parsed(complete=True, error=_error_kind(payload["error"]),
                      message=_message(payload["error"]))
    usage = payload.get("usage")
    parsed.model = payload.get("model")
    if isinstance(usage, dict):
        parsed.reported = True
        parsed.tokens = {
            Api.ANTHROPIC_MESSAGES: anthropic_tokens,
            Api.OPENAI_RESPONSES: responses_tokens,
            Api.OPENAI_CHAT: chat_tokens,
        }.get(api, chat_tokens)(usage)
    return parsed


def parse_stream(api: Api, body: bytes) -> Parsed:
    """A streamed (SSE) response body, whole or cut short."""
    parsed = Parsed()
    anthropic_usage: dict[str, Any] = {}
    for name, data in sse_events(body):
        if data.strip() == "[DONE]":
            parsed.complete = True
            continue
        try:
            event = json.loads(data)
        except ValueError:
            return Parsed(tokens=parsed.tokens, reported=parsed.reported, model=parsed.model,
                          error="malformed_response",
                          message=f"malformed event data: {data[:200]!r}")
        if not isinstance(event, dict):
            continue
        kind = event.get("type") or name
        if api is Api.ANTHROPIC_MESSAGES:
            if kind == "message_start":
                message = event.get("message") or {}
                parsed.model = message.get("model")
                anthropic_usage.update(message.get("usage") or {})
            elif kind == "message_delta":
                anthropic_usage.update(event.get("usage") or {})
            elif kind == "message_stop":
                parsed.complete = True
            elif kind == "error":
                parsed.error = _error_kind(event.get("error"))
                parsed.message = _message(event.get("error"))
            if anthropic_usage:
                parsed.reported = True
                parsed.tokens = anthropic_tokens(anthropic_usage)
        elif api is Api.OPENAI_RESPONSES:
            response = event.get("response") or {}
            if kind in ("response.completed", "response.incomplete", "response.failed"):
                parsed.complete = kind != "response.failed"
                parsed.model = response.get("model")
                if isinstance(response.get("usage"), dict):
                    parsed.reported = True
                    parsed.tokens = responses_tokens(response["usage"])
                if kind == "response.failed":
                    parsed.error = _error_kind(response.get("error"))
                    parsed.message = _message(response.get("error"))
            elif kind == "error":
                parsed.error = _error_kind(event.get("error") or event)
                parsed.message = _message(event.get("error") or event)
        else:
            parsed.model = event.get("model") or parsed.model
            if isinstance(event.get("usage"), dict):
                parsed.reported = True
                parsed.tokens = chat_tokens(event["usage"])
            if event.get("error"):
                parsed.error = _error_kind(event["error"])
                parsed.message = _message(event["error"])
            for choice in event.get("choices") or ():
                if isinstance(choice, dict) and choice.get("finish_reason"):
                    parsed.complete = True
    if not parsed.complete and parsed.error is None:
        parsed.error = "stream_error"
        parsed.message = "the stream ended before its final event"
    return parsed


def parse_response(api: Api, body: bytes, *, stream: bool) -> Parsed:
    """Tokens, model and completeness of one response body."""
    if stream:
        return parse_stream(api, body)
    try:
        payload = json.loads(body or b"null")
    except ValueError:
        return Parsed(error="malformed_response", message=f"response is not JSON: {body[:200]!r}")
    return parse_json(api, payload)
