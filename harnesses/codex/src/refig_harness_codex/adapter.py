"""Runs ``codex exec --json`` for one attempt and reads its JSONL events.

What it passes and why (see docs/harnesses.md):

- ``exec --json``: non-interactive, one event per line (``thread.started``, ``turn.*``,
  ``item.*``, ``error``); the prompt on standard input, so no option can swallow it;
- ``--model`` and, in ``config.toml``, ``model_reasoning_effort`` (minimal ... ``xhigh``);
- ``--image SOURCE``: the source figure attached to the first message (unless option ``figure``
  is ``file``: then it is only the file in the workspace);
- ``--skip-git-repo-check``: the workspace is not a git repository;
- ``--dangerously-bypass-approvals-and-sandbox`` (default; option ``sandbox`` picks
  ``workspace-write`` instead): refig's bubblewrap sandbox is the boundary, and Codex's own one
  cannot nest inside it;
- ``CODEX_HOME`` in the attempt's private home (outside the temp dir: Codex declines to install
  its helper binaries under it), holding a ``config.toml`` with a ``model_providers.refig``
  entry: ``base_url`` = the gateway, ``wire_api = "responses"``, the key read from
  ``REFIG_GATEWAY_KEY`` (a dummy the gateway replaces), retries as asked; analytics, update
  checks, history and the provider-side web search off.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

from refig.plugin import AttemptContext, ErrorInfo, Usage
from refig_toolkit_agent import (
    DUMMY_KEY,
    OPENAI,
    SHARED_OPTIONS,
    CliHarness,
    Invocation,
    Report,
    events,
)

from refig_harness_codex.pin import PIN

EFFORTS = ("minimal", "low", "medium", "high", "xhigh")
SANDBOXES = ("bypass", "workspace-write", "danger-full-access")
KEY_ENV = "REFIG_GATEWAY_KEY"


def _toml(value: str | int) -> str:
    return str(value) if isinstance(value, int) else json.dumps(value)


class CodexHarness(CliHarness):
    """The ``codex`` harness."""

    name = "codex"
    pin = PIN
    example_model = "gpt-5.5"
    provider = OPENAI
    accepted: ClassVar[dict[str, tuple[str, ...]]] = {
        **SHARED_OPTIONS, "effort": EFFORTS, "max_retries": (), "sandbox": SANDBOXES,
    }

    def config(self, ctx: AttemptContext, base_url: str) -> str:
        """The attempt's ``config.toml``."""
        lines = [f"model = {_toml(ctx.model)}", 'model_provider = "refig"',
                 'web_search = "disabled"', "check_for_update_on_startup = false"]
        if effort := self.option(ctx, "effort"):
            lines.append(f"model_reasoning_effort = {_toml(effort)}")
        lines += ["", "[analytics]", "enabled = false", "", "[history]", 'persistence = "none"',
                  "", "[model_providers.refig]", 'name = "refig gateway"',
                  f"base_url = {_toml(base_url)}", 'wire_api = "responses"',
                  f"env_key = {_toml(KEY_ENV)}"]
        if retries := self.option(ctx, "max_retries"):
            lines += [f"request_max_retries = {int(retries)}",
                      f"stream_max_retries = {int(retries)}"]
        return "\n".join(lines) + "\n"

    def invocation(self, ctx: AttemptContext, binary: Path, base_url: str,
                   home: Path) -> Invocation:
        codex_home = home / ".codex"
        codex_home.mkdir(parents=True, exist_ok=True)
        (codex_home / "config.toml").write_text(self.config(ctx, base_url))
        sandbox = self.option(ctx, "sandbox") or "bypass"
        argv = [str(binary), "exec", "--json", "--skip-git-repo-check", "--model", ctx.model,
                "--cd", str(ctx.workspace)]
        if self.figure(ctx) == "inline":
            argv.append(f"--image={ctx.source}")
        argv += (["--dangerously-bypass-approvals-and-sandbox"] if sandbox == "bypass"
                 else ["--sandbox", sandbox])
        argv.append("-")  # the prompt comes on standard input
        env = {"CODEX_HOME": str(codex_home), KEY_ENV: DUMMY_KEY}
        return Invocation(argv, env, stdin=ctx.prompt.text.encode())

    def read_report(self, transcript: Path) -> Report:
        usage = Usage()
        turns = 0
        error: ErrorInfo | None = None
        finished = False
        last_error = ""
        for event in events(transcript):
            kind = event.get("type")
            if kind == "turn.completed":
                finished = True
                turns += 1
                raw = event.get("usage")
                raw = raw if isinstance(raw, dict) else {}
                usage = usage + Usage(
                    input_tokens=int(raw.get("input_tokens") or 0),
                    output_tokens=int(raw.get("output_tokens") or 0),
                    cached_tokens=int(raw.get("cached_input_tokens") or 0),
                    reasoning_tokens=int(raw.get("reasoning_output_tokens") or 0))
            elif kind == "turn.failed":
                finished = True
                detail = event.get("error")
                message = detail.get("message") if isinstance(detail, dict) else detail
                error = ErrorInfo(kind="api_error", message=str(message or last_error)[:500])
            elif kind == "error":
                last_error = str(event.get("message") or "")
        return Report(error=error, turns=turns or None, usage=usage, finished=finished)
