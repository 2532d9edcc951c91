"""The scripted model's answers on the wire: Anthropic Messages, OpenAI Responses and Chat
Completions, whole or as server-sent events, and their error bodies."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from refig_toolkit_agent.gateway.usage import Api

from refig_toolkit_testing.script import ToolCall


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
        block: dict[str, Any] = {"type": "tool_use", "id": reply.call_id, "name": reply.call.name,
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
        deltas: list[dict[str, Any]] = [{"role": "assistant", "content": reply.text or ""}]
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


ENCODERS = {Api.ANTHROPIC_MESSAGES: _anthropic, Api.OPENAI_RESPONSES: _responses,
             Api.OPENAI_CHAT: _chat}


def error_body(api: Api, status: int) -> dict[str, Any]:
    kinds = {400: ("invalid_request_error", "scripted bad request"),
             429: ("rate_limit_error", "scripted rate limit"),
             500: ("api_error", "scripted internal error")}
    kind, message = kinds[status]
    if api is Api.ANTHROPIC_MESSAGES:
        return {"type": "error", "error": {"type": kind, "message": message}}
    return {"error": {"type": kind, "code": kind, "message": message, "param": None}}


def reported(api: Api, events: Iterable[tuple[str | None, Any]]) -> dict[str, int]:
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
