"""Runs ``qwen`` headless for one attempt and reads its stream-json result event.

What it passes and why (see docs/harnesses.md):

- the prompt as the positional query (one-shot), ``--output-format stream-json`` (a ``result``
  event at the end, as Claude Code's), ``--auth-type openai`` (Chat Completions), ``-m MODEL``;
- the figure inline (option ``figure``, default ``inline``): the query starts with
  ``@source.png``, Qwen Code's own way to attach a file to the first message. It sends the image
  only for models its model table marks as taking images (``qwen3-vl-plus`` does,
  ``qwen3-coder-plus`` does not: it gets a note that the image is unsupported instead). Its
  ``--input-format stream-json`` turns image blocks into text, so it is not used;
- ``--approval-mode yolo``: the agent writes and runs code without prompts; refig's sandbox is
  the boundary;
- ``--max-session-turns`` (default 100);
- ``HOME`` and ``QWEN_HOME`` in the attempt's private home, with a ``settings.json`` that turns
  off usage statistics, telemetry, auto-update and the background memory agents (which would
  otherwise make extra model calls), and sets ``model.reasoningEffort`` and
  ``model.generationConfig.maxRetries`` when asked;
- ``OPENAI_BASE_URL`` = the gateway, ``OPENAI_API_KEY`` = a dummy the gateway replaces.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

from refig.plugin import AttemptContext, ErrorInfo, Usage
from refig_toolkit_agent import (
    DUMMY_KEY,
    OPENAI,
    SHARED_OPTIONS,
    CliHarness,
    Invocation,
    Report,
    last_event,
)

from refig_harness_qwen_code.pin import PIN

EFFORTS = ("low", "medium", "high", "xhigh", "max")
DEFAULT_MAX_TURNS = 100


class QwenCodeHarness(CliHarness):
    """The ``qwen-code`` harness."""

    name = "qwen-code"
    pin = PIN
    example_model = "qwen3-coder-plus"
    provider = OPENAI
    accepted: ClassVar[dict[str, tuple[str, ...]]] = {
        **SHARED_OPTIONS, "effort": EFFORTS, "max_turns": (), "max_retries": (),
    }

    def settings(self, ctx: AttemptContext) -> dict[str, Any]:
        """The attempt's ``settings.json``."""
        model: dict[str, Any] = {"name": ctx.model}
        if effort := self.option(ctx, "effort"):
            model["reasoningEffort"] = effort
        if retries := self.option(ctx, "max_retries"):
            model["generationConfig"] = {"maxRetries": int(retries)}
        return {
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "general": {"enableAutoUpdate": False},
            "memory": {"enableManagedAutoMemory": False, "enableManagedAutoDream": False},
            "model": model,
        }

    def invocation(self, ctx: AttemptContext, binary: Path, base_url: str,
                   home: Path) -> Invocation:
        qwen_home = home / ".qwen"
        qwen_home.mkdir(parents=True, exist_ok=True)
        (qwen_home / "settings.json").write_text(json.dumps(self.settings(ctx), indent=2))
        argv = [str(binary), "--auth-type", "openai", "-m", ctx.model,
                "--approval-mode", "yolo", "--output-format", "stream-json",
                "--max-session-turns", self.option(ctx, "max_turns") or str(DEFAULT_MAX_TURNS),
                f"@{ctx.source.name} {ctx.prompt.text}" if self.figure(ctx) == "inline"
                else ctx.prompt.text]
        env = {"HOME": str(home), "QWEN_HOME": str(qwen_home), "OPENAI_BASE_URL": base_url,
               "OPENAI_API_KEY": DUMMY_KEY, "OPENAI_MODEL": ctx.model,
               "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1"}
        return Invocation(argv, env)

    def read_report(self, transcript: Path) -> Report:
        result = last_event(transcript, "result")
        if result is None:
            return Report()
        error = None
        if result.get("is_error") or result.get("subtype") != "success":
            detail = result.get("error")
            message = detail.get("message") if isinstance(detail, dict) else detail
            subtype = str(result.get("subtype") or "")
            kind = "max_turns" if "turn" in subtype else "api_error"
            error = ErrorInfo(kind=kind, message=str(message or result.get("result")
                                                     or subtype)[:500])
        raw = result.get("usage")
        raw = raw if isinstance(raw, dict) else {}
        usage = Usage(input_tokens=int(raw.get("input_tokens") or 0),
                      output_tokens=int(raw.get("output_tokens") or 0),
                      cached_tokens=int(raw.get("cache_read_input_tokens") or 0))
        turns = result.get("num_turns")
        return Report(error=error, finished=True, usage=usage,
                      turns=turns if isinstance(turns, int) else None)
