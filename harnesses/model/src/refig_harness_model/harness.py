"""The ``model`` harness: one model call, no agent loop, the code in the answer as the program.

For one attempt it starts a recording gateway in front of the provider (so turns, tokens and cost
are measured exactly as for the CLI harnesses), sends the workflow's prompt and the figure through
litellm to the gateway, retries a passing failure (honouring ``Retry-After``) within the
deadline, and writes the code of the answer to the task's program file in the workspace.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from refig.plugin import AttemptContext, ErrorInfo, Harness, HarnessResult, Task, UsageError
from refig_toolkit_agent import (
    ANTHROPIC,
    CALLS,
    DUMMY_KEY,
    OPENAI,
    READ_GRACE,
    TRANSCRIPT,
    Gateway,
    PriceTable,
    Provider,
    require_key,
    summarize,
    upstream_for,
    write_calls,
)
from refig_toolkit_llm import (
    OPENAI_COMPATIBLE,
    CallError,
    ChatClient,
    ChatOptions,
    ChatReply,
    RetryPolicy,
    data_url,
    import_litellm,
)

from refig_harness_model.answer import NoCode, extract_code
from refig_harness_model.options import ModelOptions, parse_options

#: Workflows whose prompt asks for one answer holding the code (an agent's prompt asks for files).
ANSWER_WORKFLOWS = ("answer",)
#: figure-to-code's deliverable role, and its file name per language.
PROGRAM = "program"
PROGRAM_FILES = {"python": "figure.py", "matlab": "figure.m", "r": "figure.R",
                 "latex": "figure.tex"}


def provider_of(model: str) -> Provider:
    """The wire API litellm will speak for ``model``: Anthropic Messages or OpenAI chat."""
    try:
        provider = import_litellm().get_llm_provider(model)[1]
    except Exception as exc:  # litellm cannot map the name at all
        raise UsageError(f"litellm does not know model {model!r}: {exc}",
                         fix="name it PROVIDER/MODEL, e.g. openai/gpt-5.4") from exc
    if provider == "anthropic":
        return ANTHROPIC
    if provider in OPENAI_COMPATIBLE:
        return OPENAI
    raise UsageError(
        f"the model harness records calls through refig's gateway, which reads OpenAI chat and "
        f"Anthropic messages; litellm would call {model!r} through {provider!r}",
        fix="serve the model behind an OpenAI-compatible endpoint and pass "
            "--model openai/NAME --harness-opt upstream=URL")


def program_file(task: Task) -> str:
    """Where the answer's code goes in the workspace: the file the family's deliverable names."""
    language = str(task.params.get("language", "")).lower()
    if language not in PROGRAM_FILES:
        raise UsageError(f"task {task.id} has language {language or 'none'!r}; the model "
                         f"harness writes {', '.join(PROGRAM_FILES)} programs")
    return PROGRAM_FILES[language]


@dataclass(frozen=True)
class Outcome:
    """The last call's answer, or the typed reason there is none."""

    reply: ChatReply | None
    error: ErrorInfo | None


class ModelHarness(Harness):
    """The ``model`` harness; options from the factory, overridden per configuration."""

    name = "model"

    def __init__(self, **options: Any):
        self.raw = {k: v for k, v in options.items() if v is not None}
        self.options = parse_options(self.raw)

    def preflight(self, model: str) -> None:
        """Refuse, before the first attempt, a model litellm cannot map to a wire the gateway
        reads, or its provider's API key missing while calls go to the provider itself."""
        require_key(self.name, provider_of(model), self.options.upstream)

    def run(self, ctx: AttemptContext) -> HarnessResult:
        options = parse_options({**self.raw, **ctx.options})
        workflow = ctx.prompt.version.split(".", 1)[0]
        if workflow not in ANSWER_WORKFLOWS:
            return HarnessResult(exit_code=None, error=ErrorInfo(
                kind="setup_error", message=f"the model harness gives one answer; workflow "
                f"{workflow or '?'!r} asks an agent for files: use --workflow answer"))
        try:
            provider = provider_of(ctx.model)
            target = ctx.workspace / program_file(ctx.task)
        except UsageError as exc:
            return HarnessResult(exit_code=None, error=ErrorInfo(kind="setup_error",
                                                                 message=str(exc)))
        outputs = ctx.outputs_dir or ctx.workspace.parent / "outputs"
        outputs.mkdir(parents=True, exist_ok=True)
        calls_log, transcript = outputs / CALLS, outputs / TRANSCRIPT
        read_timeout = min(options.timeout, max(5.0, ctx.deadline - time.monotonic())) + READ_GRACE
        gateway = Gateway(upstream_for(provider, ctx, options.upstream),
                          prices=PriceTable.load(options.prices), log=calls_log,
                          read_timeout=read_timeout)
        with gateway:
            outcome = self.ask(ctx, options, gateway.url)
        write_calls(calls_log, gateway.calls)
        summary = summarize(gateway.calls)
        error = None if outcome.reply is not None else self.verdict(outcome, summary.last_error)
        program = None
        if outcome.reply is not None:
            transcript.write_text(json.dumps({"type": "answer", "model": outcome.reply.model,
                                              "content": outcome.reply.content}) + "\n")
            try:
                target.write_text(extract_code(outcome.reply.content), encoding="utf-8")
                program = target
            except NoCode as exc:
                error = ErrorInfo(kind="no_code", message=f"{exc} ({ctx.model})")
        outputs = {"transcript": transcript, "calls": calls_log}
        return HarnessResult(
            exit_code=0 if error is None else None, error=error,
            outputs=outputs if program is None else {PROGRAM: program, **outputs},
            turns=summary.turns, usage=summary.usage, cost_usd=summary.cost_usd,
        )

    @staticmethod
    def verdict(outcome: Outcome, wire: ErrorInfo | None) -> ErrorInfo | None:
        """Why there is no answer. The gateway saw the wire (a malformed body, the 429's
        Retry-After), so its word is sharper than litellm's about the same call; but a call it
        recorded as aborted was cut by the client's own timeout, which is the cause."""
        if wire is None or (wire.kind == "aborted" and outcome.error is not None):
            return outcome.error
        return wire

    def ask(self, ctx: AttemptContext, options: ModelOptions, base_url: str) -> Outcome:
        """Call until an answer comes, a failure is final, retries run out or time does."""
        messages = [{"role": "user", "content": [
            {"type": "text", "text": ctx.prompt.text},
            {"type": "image_url", "image_url": {"url": data_url(ctx.source,
                                                                 options.max_image_side),
                                                "detail": "high"}},
        ]}]
        policy = RetryPolicy(attempts=options.max_retries + 1)
        error: ErrorInfo | None = None
        for attempt in range(policy.attempts):
            if attempt:
                delay = policy.delay(attempt - 1, error.retry_after if error else None)
                if time.monotonic() + delay >= ctx.deadline:
                    break
                time.sleep(delay)
            remaining = ctx.deadline - time.monotonic()
            if remaining <= 0:
                break
            client = ChatClient(ChatOptions(
                model=ctx.model, api_base=base_url, api_key=DUMMY_KEY,
                timeout=min(options.timeout, remaining), temperature=options.temperature,
                top_p=options.top_p, seed=options.seed,
                reasoning_effort=options.reasoning_effort, max_tokens=options.max_tokens,
            ))
            try:
                return Outcome(client.complete(messages, response_format=None,
                                               tag=ctx.attempt_id or None), None)
            except CallError as exc:
                error = exc.error
                if not error.retryable:
                    break
        return Outcome(None, error or ErrorInfo(
            kind="timeout", message="the attempt's deadline came before any answer",
            retryable=True))
