"""The shared body of every adapter that drives a real harness CLI (Claude Code, Codex, Qwen Code).

For one attempt it finds the pinned CLI, starts a recording gateway in front of the provider,
runs the CLI in the attempt's sandbox until the deadline (through
:func:`refig.running.sandbox.run_command`), and builds the :class:`HarnessResult` from the
gateway's record (turns, tokens, cost: the same accounting for every harness) and from the CLI's
own final report (its verdict, which the gateway cannot see). A subclass says only how to invoke
its CLI and how to read its transcript.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from abc import abstractmethod
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from refig.errors import RefigError, UsageError, did_you_mean
from refig.models import ErrorInfo, Usage
from refig.protocols import AttemptContext, CommandPolicy, Harness, HarnessResult
from refig.records import CliPin
from refig.running.sandbox import SandboxPolicy, run_command
from refig.suite import IMAGE_SUFFIXES

from refig_toolkit_agent.figure import DEFAULT_FIGURE, FIGURE_DELIVERY, Delivery
from refig_toolkit_agent.figure import OPTION as FIGURE_OPTION
from refig_toolkit_agent.gateway import Gateway, PriceTable, Upstream, summarize
from refig_toolkit_agent.gateway.calls import CallSummary, write_calls
from refig_toolkit_agent.install import require
from refig_toolkit_agent.tunnel import GatewayTunnel

TRANSCRIPT = "transcript.jsonl"
CALLS = "calls.jsonl"
STDERR = "stderr.log"
#: Seconds an upstream read may outlast the attempt's deadline (see ``Gateway.read_timeout``).
READ_GRACE = 30.0


@dataclass(frozen=True)
class Provider:
    """Where a harness's model traffic goes by default, and the variables that override it.

    ``base_env`` and ``key_env`` are read from the attempt's secrets, then refig's environment
    (``ANTHROPIC_BASE_URL``/``ANTHROPIC_API_KEY``, ``OPENAI_BASE_URL``/``OPENAI_API_KEY``).
    """

    base_env: str
    key_env: tuple[str, ...]
    default_base: str
    auth: str
    mount: str


ANTHROPIC = Provider("ANTHROPIC_BASE_URL", ("ANTHROPIC_API_KEY",), "https://api.anthropic.com",
                     "x-api-key", "")
OPENAI = Provider("OPENAI_BASE_URL", ("OPENAI_API_KEY",), "https://api.openai.com/v1", "bearer",
                  "/v1")


@dataclass(frozen=True)
class Invocation:
    """How to start the CLI: the command line, variables added to the attempt's environment, what
    to write to its standard input, and extra host paths the sandbox must expose."""

    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    stdin: bytes | None = None
    writable: list[Path] = field(default_factory=list)
    readable: list[Path] = field(default_factory=list)


@dataclass(frozen=True)
class Report:
    """What the CLI itself said at the end: its verdict and its own counts (kept for comparison;
    refig's numbers come from the gateway)."""

    error: ErrorInfo | None = None
    turns: int | None = None
    usage: Usage | None = None
    cost_usd: float | None = None
    finished: bool = False


#: Options every CLI adapter reads: the provider's base URL, a price override file, and how the
#: figure is delivered (:mod:`refig_toolkit_agent.figure`).
SHARED_OPTIONS: dict[str, tuple[str, ...]] = {"upstream": (), "prices": (),
                                              FIGURE_OPTION: FIGURE_DELIVERY}
#: Gateway failure kinds that mean the provider refused the call (it may answer later).
REFUSALS = frozenset({"rate_limited", "api_error"})
#: Options whose value is a whole number.
COUNT_OPTIONS = frozenset({"max_turns", "max_retries"})


class CliHarness(Harness):
    """Base of the CLI adapters; ``options`` come from the factory and, per configuration, from
    ``ctx.options`` (which win). Each adapter lists what it reads in ``accepted``: an unknown key
    or a value outside its choices is a :class:`UsageError` when the harness is created, so
    ``refig run`` exits 2 before any attempt instead of ignoring a typo."""

    name: ClassVar[str]
    pin: ClassVar[CliPin]
    provider: ClassVar[Provider]
    #: A model the CLI knows (it picks its tools by model), used by ``refig harness check``.
    example_model: ClassVar[str]
    #: The ``--harness-opt`` keys this adapter reads, each with the values it allows (``()``:
    #: any value).
    accepted: ClassVar[dict[str, tuple[str, ...]]]
    #: How the figure reaches the agent is a factor of the experiment: ``refig run`` records
    #: the default in the configuration id when a run does not choose.
    recorded_defaults: ClassVar[dict[str, str]] = {FIGURE_OPTION: DEFAULT_FIGURE}

    def __init__(self, **options: str | None):
        self.options = {k: str(v) for k, v in options.items() if v is not None}
        for key, value in self.options.items():
            self.check_option(key, value)

    def check_option(self, key: str, value: str) -> None:
        """Refuse a key this adapter does not read, or a value it does not allow."""
        if key not in self.accepted:
            raise UsageError(f"harness {self.name} has no option {key!r}"
                             f"{did_you_mean(key, self.accepted)}; "
                             f"options: {', '.join(sorted(self.accepted))}")
        allowed = self.accepted[key]
        if allowed and value not in allowed:
            raise UsageError(f"unknown {self.name} {key} {value!r}"
                             f"{did_you_mean(value, allowed)}; "
                             f"choose one of: {', '.join(allowed)}")
        if key in COUNT_OPTIONS and not value.isdigit():
            raise UsageError(f"{self.name} {key} must be a whole number, not {value!r}")

    def option(self, ctx: AttemptContext, key: str) -> str | None:
        """The value of option ``key`` for this attempt (checked), or None when unset."""
        value = ctx.options.get(key, self.options.get(key))
        if value in (None, ""):
            return None
        self.check_option(key, str(value))
        return str(value)

    def figure(self, ctx: AttemptContext) -> Delivery:
        """How this attempt's figure reaches the agent: ``inline`` or ``file``. A source that is
        no image (a deck to edit) is always only a file: attached, it would not decode."""
        if ctx.source.suffix.lower() not in IMAGE_SUFFIXES:
            return "file"
        return "file" if self.option(ctx, FIGURE_OPTION) == "file" else DEFAULT_FIGURE

    @abstractmethod
    def invocation(self, ctx: AttemptContext, binary: Path, base_url: str,
                   home: Path) -> Invocation:
        """The command that runs one attempt against ``base_url`` (the gateway)."""

    @abstractmethod
    def read_report(self, transcript: Path) -> Report:
        """Parse the CLI's machine-readable output."""

    def preflight(self, model: str) -> None:
        """Refuse (exit 2, before the first attempt) what would fail every attempt: the pinned
        CLI not installed, or no API key while calls go to the provider's own address."""
        try:
            require(self.name, self.pin)
        except RefigError as exc:
            raise UsageError(exc.message, fix=exc.fix) from exc
        require_key(self.name, self.provider, self.options.get("upstream"))

    def upstream(self, ctx: AttemptContext) -> Upstream:
        """The real provider behind the gateway, with the real key (never given to the agent)."""
        return upstream_for(self.provider, ctx, self.option(ctx, "upstream"))

    def run(self, ctx: AttemptContext) -> HarnessResult:
        try:
            cli = require(self.name, self.pin)
        except RefigError as exc:
            return HarnessResult(exit_code=None, error=ErrorInfo(
                kind="harness_missing", message=str(exc)))
        binary = Path(str(cli.path))
        outputs = ctx.outputs_dir or Path(tempfile.mkdtemp(prefix=f"refig-{self.name}-"))
        outputs.mkdir(parents=True, exist_ok=True)
        home = ctx.home or outputs / "home"
        home.mkdir(parents=True, exist_ok=True)
        transcript, calls_log = outputs / TRANSCRIPT, outputs / CALLS
        prices = PriceTable.load(self.option(ctx, "prices"))
        # No upstream read outlives the attempt by much, even when the agent was killed mid-call;
        # the grace lets the deadline end the attempt first, so such a call is recorded aborted.
        read_timeout = max(5.0, ctx.deadline - time.monotonic()) + READ_GRACE
        gateway = Gateway(self.upstream(ctx), prices=prices, log=calls_log,
                          read_timeout=read_timeout)
        policy: CommandPolicy = ctx.sandbox or SandboxPolicy()
        with gateway, GatewayTunnel(gateway.url, policy) as tunnel:
            call = self.invocation(ctx, binary, gateway.url, home)
            process = run_command(
                ctx, tunnel.wrap(call.argv), env={**ctx.env, **call.env}, stdout=transcript,
                stdin_data=call.stdin,
                stderr=ctx.log or outputs / STDERR,
                readable=[cli_root(binary), *call.readable],
                writable=[*call.writable, *tunnel.writable],
                network=policy.reach == "host",
            )
        write_calls(calls_log, gateway.calls)
        summary = summarize(gateway.calls)
        report = self.read_report(transcript)
        error = self.verdict(process.timed_out, process.exit_code, report, summary)
        return HarnessResult(
            exit_code=process.exit_code, error=error,
            outputs={"transcript": transcript, "calls": calls_log},
            turns=summary.turns, usage=summary.usage, cost_usd=summary.cost_usd,
            cli_version=cli.found,
        )

    def verdict(self, timed_out: bool, exit_code: int | None, report: Report,
                summary: CallSummary) -> ErrorInfo | None:
        """The attempt's typed failure, or None when it succeeded.

        The deadline wins, unless the calls since the last answer were all refused (429 or
        5xx): the CLI was still retrying them, so the provider, not the agent, ran out the clock.
        Otherwise a CLI that failed (non-zero exit, or its own error report) is blamed on its
        last model call when that call failed, since that is the cause the CLI gave up on, and
        on the CLI's report otherwise.
        """
        if timed_out:
            refused = summary.last_error
            if refused is not None and refused.kind in REFUSALS:
                return refused.model_copy(update={"message": (
                    f"{refused.message}; every call since the last answer was refused, and the "
                    "deadline ended the CLI's retries")})
            return ErrorInfo(kind="timeout", message="the attempt reached its deadline",
                             retryable=True)
        failed = report.error is not None or exit_code != 0 or not report.finished
        if not failed:
            return None
        if summary.last_error is not None and (report.error is None
                                               or report.error.kind != "max_turns"):
            return summary.last_error
        if report.error is not None:
            return report.error
        if not report.finished:
            return ErrorInfo(kind="harness_error",
                             message=f"{self.name} exited {exit_code} without a final report")
        return ErrorInfo(kind="harness_error", message=f"{self.name} exited {exit_code}")


def require_key(harness: str, provider: Provider, upstream: str | None) -> None:
    """A :class:`UsageError` with the fix when ``provider``'s calls would go to its own address
    (no ``upstream``, no base URL variable) without its API key in refig's environment."""
    if upstream or os.environ.get(provider.base_env):
        return  # another server (a local one, a proxy) may need no key
    if not any(os.environ.get(key) for key in provider.key_env):
        raise UsageError(
            f"harness {harness} needs {' or '.join(provider.key_env)}: without it every call "
            f"to {provider.default_base} is refused",
            fix=f"export {provider.key_env[0]}=... (refig's gateway holds it; the agent never "
            f"sees it), or point the harness at another server with {provider.base_env}=URL or "
            "--harness-opt upstream=URL",
        )


def upstream_for(provider: Provider, ctx: AttemptContext, base: str | None = None) -> Upstream:
    """Where ``provider``'s calls of this attempt go (``base``, else its variable, else its
    default), with the real key from the attempt's secrets or refig's environment."""
    env: Mapping[str, str] = {**os.environ, **ctx.env, **ctx.secrets}
    key = next((env[k] for k in provider.key_env if env.get(k)), None)
    return Upstream(base or env.get(provider.base_env) or provider.default_base, key,
                    provider.auth, provider.mount)


def cli_root(binary: Path) -> Path:
    """The install prefix (or directory) of a CLI, to expose read-only in the sandbox."""
    resolved = binary.resolve()
    for parent in resolved.parents:
        if parent.name == "node_modules":
            return parent.parent
    return resolved.parent


def events(transcript: Path) -> Iterator[dict[str, object]]:
    """The JSON objects of a JSONL transcript, skipping lines that are not JSON objects."""
    if not transcript.exists():
        return
    with transcript.open("rb") as handle:
        for line in handle:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict):
                yield event


def last_event(transcript: Path, kind: str) -> dict[str, object] | None:
    """The last event of type ``kind`` in a JSONL transcript (a CLI's final report), or None."""
    found = None
    for event in events(transcript):
        if event.get("type") == kind:
            found = event
    return found

