"""The surface a harness adapter imports: the CLI adapter base and its reports, the gateway's
names, the sandboxed command runner and the workspace's file names."""

from __future__ import annotations

from refig.gateway import DUMMY_KEY
from refig.gateway.calls import status_kind
from refig.gateway.usage import anthropic_tokens
from refig.harness.adapter import (
    ANTHROPIC,
    OPENAI,
    SHARED_OPTIONS,
    CliHarness,
    Invocation,
    Report,
    events,
    last_event,
)
from refig.harness.figure import stream_json_message
from refig.inflight import in_flight
from refig.running import PROGRAM_FILE, SLIDE_FILE, run_command, source_name

__all__ = [
    "ANTHROPIC",
    "DUMMY_KEY",
    "OPENAI",
    "PROGRAM_FILE",
    "SHARED_OPTIONS",
    "SLIDE_FILE",
    "CliHarness",
    "Invocation",
    "Report",
    "anthropic_tokens",
    "events",
    "in_flight",
    "last_event",
    "run_command",
    "source_name",
    "status_kind",
    "stream_json_message",
]
