"""One attempt of a configuration on a task, its outputs, usage and typed errors."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import Field

from refig.models.record import Record, utcnow


class Usage(Record):
    """Token counts of one or more model calls."""

    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    reasoning_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cached_tokens=self.cached_tokens + other.cached_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
        )


class ErrorInfo(Record):
    """A typed failure: ``kind`` is machine-readable (``timeout``, ``api_error``...)."""

    kind: str
    message: str = ""
    retryable: bool = False
    retry_after: float | None = None
    """Seconds the server asked to wait before trying again (``Retry-After``), when it said."""


class AttemptStatus(StrEnum):
    SUCCEEDED = "succeeded"
    FAILED = "failed"


class Output(StrEnum):
    """The roles refig itself gives an attempt's files in the object store; the others are the
    task family's deliverables (a slide family's ``slide`` and ``program``)."""

    TRANSCRIPT = "transcript"
    CALLS = "calls"
    LOG = "log"


class Attempt(Record):
    """One run of one configuration on one task; keyed by (task, configuration, try)."""

    task_id: str
    config_id: str
    try_index: int = Field(default=0, ge=0)
    status: AttemptStatus
    error: ErrorInfo | None = None
    outputs: dict[str, str] = Field(default_factory=dict)
    turns: int | None = None
    usage: Usage = Field(default_factory=Usage)
    cost_usd: float | None = None
    wall_seconds: float = 0.0
    exit_code: int | None = None
    harness_version: str | None = None
    cli_version: str | None = None
    prompt_sha256: str | None = None
    prompt_version: str | None = None
    sandbox: str | None = None
    #: What the agent could reach: ``gateway`` (its own network namespace, only the recording
    #: gateway) or ``host`` (the host's network: ``--network host``, or no bubblewrap).
    network: str | None = None
    #: How each process the harness started through refig's sandbox helper was confined, in
    #: order: ``bwrap`` or ``none``. Empty when it started none (a model call from refig's own
    #: process, a baseline that only writes a file).
    processes: list[str] = Field(default_factory=list)
    started_at: datetime = Field(default_factory=utcnow)
    finished_at: datetime = Field(default_factory=utcnow)

    def output(self, role: str) -> str | None:
        """Hash of the output of ``role`` (``slide``, ``deck``, ``program``...), if any."""
        return self.outputs.get(role)
