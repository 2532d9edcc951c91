"""refig's agent-running toolkit: what harness adapters share (a library; it registers nothing).

- :mod:`~refig_toolkit_agent.adapter`: the body of every adapter that drives a real harness CLI.
- :mod:`~refig_toolkit_agent.figure`: how the source figure reaches the agent (inline or a file).
- :mod:`~refig_toolkit_agent.gateway`: the recording model gateway, its calls and prices.
- :mod:`~refig_toolkit_agent.install`: pinned CLIs installed with npm into refig's prefix,
  and found.
- :mod:`~refig_toolkit_agent.httpserver`, :mod:`~refig_toolkit_agent.tunnel`,
  :mod:`~refig_toolkit_agent.forward`: the local HTTP server the gateway stands on, and the path
  from a sandbox with no network to the gateway.

The names below are the API an adapter imports (``README.md`` documents each).
"""

from __future__ import annotations

from refig_toolkit_agent.adapter import (
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
from refig_toolkit_agent.figure import stream_json_message
from refig_toolkit_agent.gateway import DUMMY_KEY, Gateway, ModelCall, PriceTable, summarize
from refig_toolkit_agent.gateway.calls import status_kind, write_calls
from refig_toolkit_agent.gateway.usage import anthropic_tokens

__all__ = [
    "ANTHROPIC",
    "CALLS",
    "DUMMY_KEY",
    "OPENAI",
    "READ_GRACE",
    "SHARED_OPTIONS",
    "TRANSCRIPT",
    "CliHarness",
    "Gateway",
    "Invocation",
    "ModelCall",
    "PriceTable",
    "Provider",
    "Report",
    "anthropic_tokens",
    "events",
    "last_event",
    "require_key",
    "status_kind",
    "stream_json_message",
    "summarize",
    "upstream_for",
    "write_calls",
]
