"""Runs ``claude -p`` for one attempt and reads its stream-json result event.

What it passes and why (see docs/harnesses.md):

- ``-p --output-format stream-json --verbose``: non-interactive, one JSON event per line,
  ending with a ``result`` event (turns, usage, ``is_error``); the prompt comes on standard input
  as one ``--input-format stream-json`` user message, which also carries the figure as a base64
  image block unless option ``figure`` is ``file`` (then it is the prompt alone);
- ``--model``, ``--effort`` (low, medium, high, xhigh, max) and ``--max-turns`` (a hidden
  option of ``-p`` mode; default 100);
- ``--dangerously-skip-permissions`` with ``IS_SANDBOX=1`` (which root needs): the agent writes
  and runs code without prompts; refig's sandbox is the boundary;
- ``--no-session-persistence``: nothing is kept for ``--resume``;
- ``CLAUDE_CONFIG_DIR`` in the attempt's private home, so no user settings leak in;
- ``CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1``, ``DISABLE_TELEMETRY``,
  ``DISABLE_ERROR_REPORTING``, ``DISABLE_AUTOUPDATER``: no traffic but model calls;
- ``ANTHROPIC_BASE_URL`` = the gateway, ``ANTHROPIC_API_KEY`` = a dummy the gateway replaces;
- ``CLAUDE_CODE_MAX_RETRIES``: ``max_retries``, or as many as fit before the deadline (retries).

An API error ends the run with ``subtype: success`` but ``is_error: true``: that is a failed
attempt, typed from the gateway's record of the failing call (``rate_limited``, ``api_error``...).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import ClassVar

from refig.plugin import AttemptContext, ErrorInfo, Usage
from refig_toolkit_agent import (
    ANTHROPIC,
    DUMMY_KEY,
    SHARED_OPTIONS,
    CliHarness,
    Invocation,
    Report,
    anthropic_tokens,
    last_event,
    status_kind,
    stream_json_message,
)

from refig_harness_claude_code.pin import PIN
from refig_harness_claude_code.retries import retries_within

EFFORTS = ("low", "medium", "high", "xhigh", "max")
DEFAULT_MAX_TURNS = 100
#: ``result`` subtypes other than success, as refig error kinds.
SUBTYPES = {"error_max_turns": "max_turns", "error_max_budget_usd": "budget_exceeded",
            "error_during_execution": "harness_error"}


class ClaudeCodeHarness(CliHarness):
    """The ``claude-code`` harness."""

    name = "claude-code"
    pin = PIN
    example_model = "claude-sonnet-4-5"
    provider = ANTHROPIC
    accepted: ClassVar[dict[str, tuple[str, ...]]] = {
        **SHARED_OPTIONS, "effort": EFFORTS, "max_turns": (), "max_retries": (),
    }

    def invocation(self, ctx: AttemptContext, binary: Path, base_url: str,
                   home: Path) -> Invocation:
        config = home / ".claude"
        config.mkdir(parents=True, exist_ok=True)
        argv = [str(binary), "-p", "--input-format", "stream-json", "--output-format",
                "stream-json", "--verbose", "--model", ctx.model, "--dangerously-skip-permissions",
                "--no-session-persistence",
                "--max-turns", self.option(ctx, "max_turns") or str(DEFAULT_MAX_TURNS)]
        if effort := self.option(ctx, "effort"):
            argv += ["--effort", effort]
        env = {
            "CLAUDE_CONFIG_DIR": str(config),
            "ANTHROPIC_BASE_URL": base_url,
            "ANTHROPIC_API_KEY": DUMMY_KEY,
            "IS_SANDBOX": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "DISABLE_AUTOUPDATER": "1",
        }
        retries = self.option(ctx, "max_retries")
        env["CLAUDE_CODE_MAX_RETRIES"] = retries or str(
            retries_within(ctx.deadline - time.monotonic()))
        figure = ctx.source if self.figure(ctx) == "inline" else None
        return Invocation(argv, env, stdin=stream_json_message(ctx.prompt.text, figure))

    def read_report(self, transcript: Path) -> Report:
        result = last_event(transcript, "result")
        if result is None:
            return Report()
        usage = result.get("usage")
        tokens = anthropic_tokens(usage) if isinstance(usage, dict) else None
        error = None
        subtype = str(result.get("subtype") or "")
        if result.get("is_error") or subtype != "success":
            status = result.get("api_error_status")
            kind = (status_kind(int(status)) if isinstance(status, int) else None) or \
                SUBTYPES.get(subtype, "api_error" if subtype == "success" else "harness_error")
            error = ErrorInfo(kind=kind, message=str(result.get("result") or subtype)[:500],
                              retryable=kind in ("rate_limited", "api_error"))
        cost = result.get("total_cost_usd")
        return Report(
            error=error, finished=True,
            turns=result.get("num_turns") if isinstance(result.get("num_turns"), int) else None,
            usage=None if tokens is None else Usage(
                input_tokens=tokens.input, output_tokens=tokens.output,
                cached_tokens=tokens.cached, reasoning_tokens=tokens.reasoning),
            cost_usd=float(cost) if isinstance(cost, int | float) else None,
        )
