"""What the objects built by plugin factories must do.

A record's ``factory(**options)`` returns an object satisfying one of these protocols. The inputs
and outputs are plain dataclasses (inside the process) or pydantic models (stored).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from refig.models import (
    ErrorInfo,
    GateResult,
    Judgment,
    MetricValue,
    ObjectTree,
    Task,
    Usage,
)

if TYPE_CHECKING:
    from refig.running.sandbox import SandboxPolicy

T = TypeVar("T")
R = TypeVar("R")


# --- running agents -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Prompt:
    """The instruction a workflow gives an agent, and the files it placed in the workspace."""

    text: str
    files: tuple[str, ...] = ()
    version: str = ""


@dataclass(frozen=True)
class AttemptContext:
    """Everything a harness needs for one attempt.

    ``workspace`` holds only the source and the workflow's files; ``deadline`` is a
    ``time.monotonic()`` value after which the harness must have ended its whole process tree.
    ``env`` is the clean environment to run the agent with: no secrets, ``HOME`` and ``TMPDIR``
    private to the attempt, and the ``REFIG_ATTEMPT_ID`` marker refig uses to end stray
    processes. ``secrets`` holds the API keys found in refig's own environment, for the harness
    to hand to a gateway or, knowingly, to its CLI; refig redacts their values from every file it
    stores. ``home`` and ``workspace`` are writable inside the sandbox, ``outputs_dir`` (for
    transcripts) is not visible to the agent. Run commands with
    :func:`refig.running.sandbox.run_command`, which applies ``sandbox`` and the deadline.
    """

    task: Task
    workspace: Path
    source: Path
    prompt: Prompt
    model: str
    deadline: float
    env: Mapping[str, str] = field(default_factory=dict)
    options: Mapping[str, str] = field(default_factory=dict)
    log: Path | None = None
    attempt_id: str = ""
    home: Path | None = None
    outputs_dir: Path | None = None
    secrets: Mapping[str, str] = field(default_factory=dict)
    sandbox: SandboxPolicy | None = None


@dataclass
class HarnessResult:
    """What a harness reports after an attempt; refig hashes and stores the files it names."""

    exit_code: int | None
    error: ErrorInfo | None = None
    slide: Path | None = None
    program: Path | None = None
    transcript: Path | None = None
    extra_outputs: dict[str, Path] = field(default_factory=dict)
    turns: int | None = None
    usage: Usage = field(default_factory=Usage)
    cost_usd: float | None = None
    harness_version: str | None = None
    cli_version: str | None = None


@runtime_checkable
class Harness(Protocol):
    """Runs one agent attempt inside a prepared workspace."""

    def run(self, ctx: AttemptContext) -> HarnessResult: ...


@runtime_checkable
class Workflow(Protocol):
    """Prepares a workspace for a harness and returns the prompt to give the agent."""

    def prepare(self, workspace: Path, task: Task, harness: str) -> Prompt: ...


@runtime_checkable
class Executor(Protocol):
    """Runs a function over items concurrently; yields ``(item, result or exception)`` as each ends.

    ``fn`` and the items must be picklable for executors that leave the process (Ray).
    """

    def map(
        self, fn: Callable[[T], R], items: Sequence[T], *, jobs: int
    ) -> Iterator[tuple[T, R | BaseException]]: ...

    def close(self) -> None: ...


# --- evaluating artifacts -----------------------------------------------------------------------


@dataclass(frozen=True)
class RenderOutput:
    """One file's rendering: a PNG path, or a typed failure."""

    png: Path | None
    error: ErrorInfo | None = None
    seconds: float = 0.0


@runtime_checkable
class Renderer(Protocol):
    """Turns .pptx files into PNGs; keeps warm processes between calls until ``close``."""

    settings: str
    version: str
    fonts: tuple[str, ...]

    def render(self, files: Sequence[Path], out_dir: Path) -> list[RenderOutput]: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class Artifact:
    """What a metric or judge sees of one artifact.

    ``source`` is the task's source figure (or deck), ``render`` the PNG of the slide when it
    rendered, ``annotation`` the task's parsed annotation when the suite has one.
    """

    path: Path
    sha256: str
    gate: GateResult
    tree: ObjectTree | None = None
    render: Path | None = None
    task: Task | None = None
    source: Path | None = None
    annotation: Mapping[str, Any] | None = None
    metrics: Mapping[str, float | None] = field(default_factory=dict)


@runtime_checkable
class Metric(Protocol):
    """Computes deterministic numbers for one artifact."""

    version: str

    def compute(self, artifact: Artifact) -> Iterable[MetricValue]: ...


@dataclass(frozen=True)
class JudgeRequest:
    """One judgment to make: the artifact, its audit text and the repeat index."""

    artifact: Artifact
    audit: str
    repeat: int
    rubric_path: Path | None = None


@runtime_checkable
class Judge(Protocol):
    """Scores an artifact on the rubric; returns a judgment, failed ones typed, never raising.

    A judge may set ``deterministic = True`` (the same inputs always give the same scores): it is
    then scored once whatever ``--repeats`` says, and its judgments carry ``deterministic``. It
    may list the ``--judge-opt`` keys it reads in ``accepts``: a key no selected judge reads is
    a usage error naming what each accepts.
    """

    key: str

    def judge(self, request: JudgeRequest) -> Judgment: ...


@runtime_checkable
class Reporter(Protocol):
    """Writes a report of a run (terminal, HTML, LaTeX, JSON...)."""

    def report(
        self, run_dir: Path, out: Path | None, options: Mapping[str, Any]
    ) -> Path | None: ...
