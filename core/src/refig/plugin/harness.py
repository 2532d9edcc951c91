"""The surface a harness adapter imports: the CLI adapter base and its reports, the gateway's
names (and the gateway itself, for a harness that calls a model without a CLI), the sandboxed
command runner (``run_command``: this is its one import path for plugins) and the workspace's
source name, with ``write_inputs``, which puts a task's inputs in a workspace as a real attempt
does (for a harness's own tests)."""

from __future__ import annotations

from refig.gateway import DUMMY_KEY, Gateway, PriceTable, summarize
from refig.gateway.calls import status_kind, write_calls
from refig.gateway.usage import anthropic_tokens
from refig.harness.adapter import (
    ANTHROPIC,
    CALLS,
    OPENAI,
    READ_GRACE,
    SHARED_OPTIONS,
    TRANSCRIPT,
    CliHarness,
    Invocation,
    Provider,
    Report,
    events,
    last_event,
    require_key,
    upstream_for,
)
from refig.harness.figure import stream_json_message
from refig.inflight import in_flight
from refig.llm import OPENAI_COMPATIBLE
from refig.running import run_command, source_name
from refig.running.workspace import write_inputs
from refig.traffic import RetryPolicy

__all__ = [
    "ANTHROPIC",
    "CALLS",
    "DUMMY_KEY",
    "OPENAI",
    "OPENAI_COMPATIBLE",
    "READ_GRACE",
    "SHARED_OPTIONS",
    "TRANSCRIPT",
    "CliHarness",
    "Gateway",
    "Invocation",
    "PriceTable",
    "Provider",
    "Report",
    "RetryPolicy",
    "anthropic_tokens",
    "events",
    "in_flight",
    "last_event",
    "require_key",
    "run_command",
    "source_name",
    "status_kind",
    "stream_json_message",
    "summarize",
    "upstream_for",
    "write_calls",
    "write_inputs",
]
