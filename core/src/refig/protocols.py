"""What the objects built by plugin factories must do.

A record's ``factory(**options)`` returns an object of one of these protocols. A protocol with
optional members (:class:`Harness`, :class:`Executor`, :class:`Renderer`, :class:`Metric`,
:class:`Judge`, :class:`TaskFamily`) is an abstract base class: a plugin class subclasses it,
so stating which protocol it implements, implements its abstract members and overrides the
defaults it needs; refig calls every member, never probing for one. :class:`Workflow` and
:class:`Reporter` have no optional member and stay structural protocols. The inputs and outputs
are plain dataclasses (inside the process) or pydantic models (stored).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar, Literal, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel

from refig.models import ErrorInfo, GateResult, Judgment, MetricValue, Render, Task, Usage

T = TypeVar("T")
R = TypeVar("R")


# --- running agents -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Prompt:
    """The instruction a workflow gives an agent, and the files it placed in the workspace."""

    text: str
    files: tuple[str, ...] = ()
    version: str = ""


class CommandPolicy(Protocol):
    """How an attempt's commands are isolated: what :class:`refig.running.sandbox.SandboxPolicy`
    offers. Named here, not imported, so the protocols depend on nothing that runs agents.
    ``mode`` is ``bwrap`` or ``none``; ``network`` False denies commands any network; ``egress``
    and ``reach`` say what an attempt may reach (``gateway`` or ``host``)."""

    @property
    def mode(self) -> str: ...
    @property
    def network(self) -> bool: ...
    @property
    def egress(self) -> str: ...
    @property
    def reach(self) -> str: ...

    def wrap(self, argv: Sequence[str], *, cwd: Path, writable: Sequence[Path],
             readable: Sequence[Path] = (), network: bool = True) -> list[str]: ...


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
    sandbox: CommandPolicy | None = None
    #: How each command started through ``run_command`` was confined (``bwrap`` or ``none``),
    #: in order; refig copies it onto the attempt's record as ``processes``.
    processes: list[str] = field(default_factory=list)


@dataclass
class HarnessResult:
    """What a harness reports after an attempt; refig hashes and stores the files it names.

    ``outputs`` maps a role to a file: one of the task family's deliverables (``slide``,
    ``program``) or refig's own ``transcript`` and ``calls`` roles; a role the family does not
    deliver fails the attempt. A deliverable it does not name is found in the workspace by the
    deliverable's pattern, as an agent leaves it.
    """

    exit_code: int | None
    error: ErrorInfo | None = None
    outputs: dict[str, Path] = field(default_factory=dict)
    turns: int | None = None
    usage: Usage = field(default_factory=Usage)
    cost_usd: float | None = None
    harness_version: str | None = None
    cli_version: str | None = None


class Harness(ABC):
    """Runs one agent attempt inside a prepared workspace (subclass it)."""

    #: The ``--harness-opt`` keys it reads, each with what it says.
    accepted: ClassVar[Mapping[str, Any]] = MappingProxyType({})
    #: Options with the value it uses when a run leaves them unset (how a CLI harness delivers
    #: the figure): ``refig run`` writes them into the configuration, so two values never share
    #: an id.
    recorded_defaults: ClassVar[Mapping[str, str]] = MappingProxyType({})

    def preflight(self, model: str) -> None:
        """Called once by ``refig run`` before the first attempt: raise
        :class:`refig.errors.UsageError` (exit 2, with the fix) when the harness cannot work
        here (no API key, its program not installed, a required option missing), instead of
        failing every attempt. By default it can."""
        return None

    @abstractmethod
    def run(self, ctx: AttemptContext) -> HarnessResult: ...


@runtime_checkable
class Workflow(Protocol):
    """Prepares a workspace for a harness and returns the prompt to give the agent."""

    def prepare(self, workspace: Path, task: Task, harness: str) -> Prompt: ...


class Executor(ABC):
    """Runs a function over items concurrently; yields ``(item, result or exception)`` as each ends.

    ``fn`` and the items must be picklable for executors that leave the process (Ray).
    """

    #: True when ``fn`` runs in this process (threads): a stage may then warm what it shares.
    in_process: bool = False
    #: Items another process finished meanwhile, as the executor counts them (shown as done
    #: elsewhere in the progress).
    elsewhere: int = 0

    @abstractmethod
    def map(
        self, fn: Callable[[T], R], items: Sequence[T], *, jobs: int
    ) -> Iterator[tuple[T, R | BaseException]]: ...

    def close(self) -> None:
        """Release the executor's workers (by default it holds none)."""
        return None

    def environment(self) -> Mapping[str, str]:
        """What its numbers depend on beyond refig's and its plugin's version (the hosts it runs
        on), each a short string, stored in the run's manifest (``refig.provenance``); by
        default nothing."""
        return {}


# --- evaluating artifacts -----------------------------------------------------------------------


@dataclass(frozen=True)
class RenderJob:
    """One artifact to realise: which pages (``first`` or ``all``), its task, and the files by
    role a realiser may need beside it (a program's data files)."""

    path: Path
    pages: Literal["first", "all"] = "first"
    task: Task | None = None
    inputs: Mapping[str, Path] = field(default_factory=dict)
    #: Export hidden slides too (LibreOffice skips them otherwise).
    hidden: bool = False


@dataclass(frozen=True)
class RenderOutput:
    """One artifact's rendering: its pages as PNG paths, or a typed failure, and what the
    renderer printed (an interpreter's output) when it kept it."""

    pages: tuple[Path, ...] = ()
    error: ErrorInfo | None = None
    seconds: float = 0.0
    log: bytes | None = None

    @property
    def png(self) -> Path | None:
        """The first page."""
        return self.pages[0] if self.pages else None


class Renderer(ABC):
    """Realises artifacts as pages (PNGs); keeps warm processes between calls until ``close``."""

    settings: str
    version: str
    fonts: tuple[str, ...]

    @abstractmethod
    def render(self, jobs: Sequence[RenderJob], out_dir: Path) -> list[RenderOutput]: ...

    def warm_up(self, count: int) -> None:
        """Start ``count`` of the processes rendering will use, so their start-up overlaps
        other work (LibreOffice); by default nothing."""
        return None

    def close(self) -> None:
        """End the warm processes (by default there are none)."""
        return None

    def environment(self) -> Mapping[str, str]:
        """What its numbers depend on beyond refig's and its plugin's version (its program's
        version, the fonts it sees and their files' digest), each a short string, stored in the
        run's manifest (``refig.provenance``); by default its ``version`` and ``settings``."""
        return {"version": self.version, "settings": self.settings}


@dataclass(frozen=True)
class Artifact:
    """What a metric or judge sees of one artifact.

    ``files`` are the attempt's outputs by role (the evaluated one at ``path``), ``structure`` the
    family's parsed structure (its ``structure_model``, or the stored dict), ``pages`` its
    rendered pages, ``references`` the task's inputs by role (hidden ones included),
    ``reference_pages`` the stored renderings of the inputs the family renders (its
    ``rendered_inputs``; a deck family's original and target decks), and
    ``annotation`` the task's parsed annotation when the suite has one. ``metrics`` holds the
    values measured so far as ``{"metric.name": value}``. ``family`` names the task family
    (empty only for an artifact built outside a run, as in a plugin's own tests).
    """

    path: Path
    sha256: str
    gate: GateResult
    family: str = ""
    files: Mapping[str, Path] = field(default_factory=dict)
    structure: Any = None
    pages: tuple[Path, ...] = ()
    references: Mapping[str, Path] = field(default_factory=dict)
    reference_pages: Mapping[str, tuple[Path, ...]] = field(default_factory=dict)
    task: Task | None = None
    annotation: Mapping[str, Any] | None = None
    metrics: Mapping[str, float | None] = field(default_factory=dict)

    @property
    def render(self) -> Path | None:
        """The first rendered page."""
        return self.pages[0] if self.pages else None

    @property
    def source(self) -> Path | None:
        """The task's source: its ``figure`` or ``deck`` input."""
        return self.references.get("figure") or self.references.get("deck")


class Metric(ABC):
    """Computes deterministic numbers for one artifact."""

    version: str

    def prepare(self, artifacts: Sequence[Artifact]) -> None:
        """Called with each group of artifacts measured together (those of one source) before
        ``compute`` on each, for work cheaper done for all at once; by default nothing. It must
        not raise for one artifact's fault: ``compute`` still gives each artifact's values."""
        return None

    @abstractmethod
    def compute(self, artifact: Artifact) -> Iterable[MetricValue]: ...

    def environment(self) -> Mapping[str, str]:
        """What its numbers depend on beyond refig's and its plugin's version (the digest of a
        model's weights, a library's version), each a short string, stored in the run's
        manifest (``refig.provenance``); by default its ``version``."""
        return {"version": self.version}


@dataclass(frozen=True)
class Evidence:
    """What a judge is shown, as its family frames it: each image with the label the judge is
    told (``the source figure``, ``the agent's slide, rendered``), and a text (an object audit,
    a structural diff, a program)."""

    images: tuple[tuple[str, Path], ...] = ()
    text: str = ""
    #: What the text is, as the judge is told (``the audit of the slide's objects``).
    text_label: str = ""
    #: Labels of images the family would show but the artifact lacks (no rendering): a judge
    #: fails ``missing_input`` rather than judge on part of the evidence.
    missing: tuple[str, ...] = ()


@dataclass(frozen=True)
class JudgeRequest:
    """One judgment to make: the artifact, the evidence its family frames, the repeat index."""

    artifact: Artifact
    evidence: Evidence
    repeat: int
    rubric_path: Path | None = None

    @property
    def audit(self) -> str:
        """The evidence text (for a slide, the compact object audit)."""
        return self.evidence.text


class Judge(ABC):
    """Scores an artifact on the rubric; returns a judgment, failed ones typed, never raising."""

    key: str
    #: True when the same inputs always give the same scores: it is then scored once whatever
    #: ``--repeats`` says, and its judgments carry ``deterministic``.
    deterministic: bool = False
    #: Its name in tables and ledgers (None: the name it was selected by).
    label: str | None = None
    #: The ``--judge-opt`` keys it reads: a key no selected judge reads is a usage error naming
    #: what each accepts (None: it checks its options itself).
    accepts: frozenset[str] | None = None

    @abstractmethod
    def judge(self, request: JudgeRequest) -> Judgment: ...

    def priced(self) -> bool | None:
        """Whether refig knows the price of the model it calls (``--budget`` needs it); None,
        the default, for a judge that calls no model."""
        return None

    def estimate_usd(self, request: JudgeRequest) -> float | None:
        """The most one judging of ``request`` may cost, to reserve against ``--budget``
        before the call (None, the default: refig reserves what the largest call cost)."""
        return None

    def environment(self) -> Mapping[str, str]:
        """What its numbers depend on beyond refig's and its plugin's version (the ``model`` it
        asks for, its prices, its prompt's ``prompt_sha256``), each a short string, stored in
        the run's manifest (``refig.provenance``); by default its ``key``."""
        return {"key": self.key}


class CanaryVerdict(Protocol):
    """What a golden canary found on this machine: whether it passed, what differs from the
    machine its expected results were made on, and the digest of the environment it checked."""

    @property
    def passed(self) -> bool: ...
    @property
    def differs(self) -> str: ...
    @property
    def environment(self) -> str: ...


@runtime_checkable
class Canary(Protocol):
    """A family's golden canary (``TaskFamilyRecord.canary``): golden documents its realiser
    (``renderer``) makes again, compared with results recorded on a machine set up as
    documented; ``refig evaluate`` checks it before it adds numbers (docs/reproducibility.md)."""

    renderer: str

    def check(self, *, quiet: bool = False) -> CanaryVerdict: ...


#: Builds one report section from the analysis context (:mod:`refig_toolkit_analysis`).
SectionBuilder = Callable[[Any], Any]


#: The keys core puts in every ``refig check --json`` row; the family's own fields sit between.
CHECK_ROW_KEYS = frozenset({"file", "sha256", "gate", "metrics", "render"})
#: Keys no family's ``refig check`` table column shows (the gate is its own column).
CHECK_TABLE_SKIPS = CHECK_ROW_KEYS | {"passed", "reason", "detail"}


class TaskFamily(ABC):
    """Everything specific to one kind of task that evaluation needs (see ``TaskFamilyRecord``).

    ``inspector`` is a version tag stored with each inspection: a new tag inspects again.
    """

    inspector: str
    #: The gate reasons that mean the input is not a file of this family at all (``refig
    #: check`` exits 1 on them; any other failed gate is a result).
    unreadable_reasons: frozenset[str] = frozenset({"missing"})
    #: Task inputs rendered once per content and stored in the run like the artifacts'
    #: renderings (see ``Artifact.reference_pages``; a deck family's original and target).
    rendered_inputs: tuple[str, ...] = ()

    @abstractmethod
    def reference_key(self, task: Task) -> str:
        """What metric values are measured against (a slide family's: the figure's sha256)."""
        ...

    @abstractmethod
    def inspect(self, path: Path, task: Task | None) -> tuple[GateResult, BaseModel | None]:
        """The structural gate and the family's structure of one artifact; never raises."""
        ...

    @abstractmethod
    def render_job(self, artifact_path: Path, task: Task | None) -> RenderJob:
        """How to realise the artifact (which pages, which inputs beside it)."""
        ...

    @abstractmethod
    def fold_gate(self, gate: GateResult, render: Render | None) -> GateResult:
        """The final gate: the structural verdict folded with the rendering's outcome."""
        ...

    @abstractmethod
    def evidence(self, artifact: Artifact) -> Evidence:
        """What a judge is shown of the artifact, and what each image is called."""
        ...

    @abstractmethod
    def check_row(self, artifact: Artifact) -> dict[str, Any]:
        """The artifact's row of ``refig check --json``."""
        ...

    @abstractmethod
    def report_sections(
        self,
    ) -> Sequence[tuple[str, SectionBuilder] | tuple[str, SectionBuilder, str | None]]:
        """The family's report sections, by name, in order; a third item names the section each
        follows (None: at the end)."""
        ...

    @abstractmethod
    def structure_model(self) -> type[BaseModel] | None:
        """The model ``Inspection.structure`` parses as, if any."""
        ...

    def render_context(self, task: Task) -> str:
        """Everything besides the file that changes its rendering for ``task`` (a program's
        inputs, size, language): renderings are stored under the file's hash and this text
        together. By default nothing: a rendering depends on the file alone."""
        return ""

    def check_cells(self, report: Mapping[str, Any]) -> dict[str, str]:
        """Its columns of the ``refig check`` table, from its ``--json`` row; by default the
        row's plain values (the gate's detail is printed under the table)."""
        cells: dict[str, str] = {}
        for key, value in report.items():
            if key in CHECK_TABLE_SKIPS or isinstance(value, dict | list | tuple):
                continue
            if isinstance(value, bool):
                cells[key] = "yes" if value else "no"
            elif isinstance(value, float):
                cells[key] = f"{value:.3g}"
            else:
                cells[key] = "-" if value is None else str(value)
        return cells

    def annotation_audit(self, artifact: Artifact, *, verdicts: bool) -> str:
        """The audit shown under a side on the annotation page (derived verdicts only when
        asked); by default the text its judges are given."""
        return self.evidence(artifact).text

    def rating_page(self, artifact: Artifact) -> Any:
        """The expert-rating page of an artifact (a ``refig_toolkit_analysis.RatingPage``); None,
        the default, shows its judges' images in one view."""
        return None

    def papers(self) -> Sequence[Any]:
        """The published papers whose tables and figures ``refig report --paper NAME --latex
        DIR`` writes for its runs (``refig_toolkit_analysis.Paper``); by default none."""
        return ()


@runtime_checkable
class Reporter(Protocol):
    """Writes a report of a run (terminal, HTML, LaTeX, JSON...)."""

    def report(
        self, run_dir: Path, out: Path | None, options: Mapping[str, Any]
    ) -> Path | None: ...
