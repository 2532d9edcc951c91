"""Frozen plugin records: what a registration hook yields.

A record names a plugin's contribution and carries a ``factory`` that performs the heavy import
only when the contribution is selected, so listing plugins never imports litellm or ray.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path, PurePath
from typing import Any, ClassVar


class PluginKind(StrEnum):
    """The kinds of contribution a plugin can register, one hook each."""

    FAMILY = "family"
    SUITE = "suite"
    HARNESS = "harness"
    WORKFLOW = "workflow"
    EXECUTOR = "executor"
    RENDERER = "renderer"
    METRIC = "metric"
    JUDGE = "judge"
    REPORTER = "reporter"


@dataclass(frozen=True, kw_only=True)
class PluginRecord:
    """Common fields of every record.

    ``factory(**options)`` builds the working object; it is the only place a plugin may import
    heavy dependencies. ``accepts_argument`` lets a selector carry a suffix after a colon, as in
    ``--judge litellm:openai/gpt-4o``; the suffix reaches the factory as ``argument=``.
    """

    kind: ClassVar[PluginKind]
    name: str
    description: str
    factory: Callable[..., Any]
    aliases: tuple[str, ...] = ()
    #: The task families this contribution serves; empty serves every family.
    families: frozenset[str] = frozenset()
    accepts_argument: bool = False
    checks: Callable[[], Iterable[Any]] | None = None

    def __post_init__(self) -> None:
        if not self.name or ":" in self.name or any(c.isspace() for c in self.name):
            raise ValueError(f"invalid {self.kind} name {self.name!r}: no spaces or colons")
        object.__setattr__(self, "aliases", tuple(self.aliases))
        if isinstance(self.families, str):
            raise TypeError(f"{self.kind} {self.name}: families must be a set of names, not a str")
        object.__setattr__(self, "families", frozenset(self.families))

    @property
    def names(self) -> tuple[str, ...]:
        """The name followed by its aliases."""
        return (self.name, *self.aliases)

    def serves(self, family: str) -> bool:
        """True when this contribution handles tasks of ``family``."""
        return not self.families or family in self.families


@dataclass(frozen=True)
class InputSpec:
    """One input role of a family's tasks; ``visible`` inputs are copied into the agent's
    workspace, hidden ones (a target deck, reference code, an annotation) only reach evaluation."""

    role: str
    visible: bool
    required: bool = True
    description: str = ""


@dataclass(frozen=True)
class Deliverable:
    """One file an agent must leave in its workspace: ``pattern`` is a file name or a glob
    (``slide.pptx``, ``figure.*``); the ``primary`` deliverable is the evaluated artifact."""

    role: str
    pattern: str
    primary: bool = False
    required: bool = True


@dataclass(frozen=True)
class FamilyDemo:
    """A family's part of ``refig demo``: the suite builder it runs (with ``n`` tasks and
    ``seed``), its model-free harnesses, the offline judge and its repeats, the folder under
    ``--out`` it writes to ("" for the one the README documents, run first), and the claim it
    checks: ``check(outcome)`` gets the :class:`refig.demo.DemoOutcome` and returns the claim's
    text and whether it held. ``family`` is its family's name (filled in by the record)."""

    suite: str
    harnesses: tuple[str, ...]
    judge: str = "metrics"
    repeats: int = 1
    folder: str = ""
    check: Callable[[Any], tuple[str, bool]] | None = None
    family: str = ""


@dataclass(frozen=True, kw_only=True)
class TaskFamilyRecord(PluginRecord):
    """A task family; ``factory()`` returns a :class:`refig.protocols.TaskFamily`.

    It declares the task schema (``inputs``), what the agent delivers, the default realiser
    (``renderer``), metrics and judges, the rubric, the prompt template per workflow, and its
    part of ``refig demo`` (``demo``), panel of the HTML viewer (``viewer``) and golden canary
    (``canary``), if any.
    ``families`` is ignored for a family: it serves itself (its ``name``).
    """

    kind: ClassVar[PluginKind] = PluginKind.FAMILY
    inputs: tuple[InputSpec, ...]
    deliverables: tuple[Deliverable, ...]
    renderer: str
    metrics: tuple[str, ...] = ()
    judges: tuple[str, ...] = ()
    rubric: Path | None = None
    prompts: Mapping[str, Path] = field(default_factory=dict)
    #: The file suffixes of its artifacts (``.py``, ``.tex``), by which ``refig check`` tells a
    #: file given to another family; default: the primary deliverable's (``slide.pptx``).
    suffixes: tuple[str, ...] = ()
    #: Whether ``refig check`` without ``--family`` takes a file with one of these suffixes as
    #: this family's; False for a family whose files need ``--family`` (a family editing decks,
    #: whose files share ``.pptx`` with another family's slides).
    claims_suffixes: bool = True
    demo: FamilyDemo | None = None
    #: Returns the family's panel of the HTML task pages (``refig view``), imported only when
    #: the viewer draws a page: an object with ``key_metrics`` (the sample list's columns, as
    #: ``(metric, name, label)``), ``panel(found) -> blocks`` and ``title`` (see
    #: docs/viewer.md). None: the viewer's generic panel of metric values.
    viewer: Callable[[], Any] | None = None
    #: Returns its golden canary (a :class:`refig.protocols.Canary`), imported only when the
    #: canary runs (``refig canary``, ``refig evaluate``). None: it has none.
    canary: Callable[[], Any] | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "families", frozenset({self.name}))
        if self.demo is not None:
            object.__setattr__(self, "demo", replace(self.demo, family=self.name))
        primaries = [d for d in self.deliverables if d.primary]
        if len(primaries) != 1:
            raise ValueError(f"family {self.name}: exactly one deliverable must be primary")

    @property
    def source_role(self) -> str | None:
        """The role of the input the agent works from: the first visible one (the figure, the
        original deck), None when every input is hidden or a pattern."""
        return next((spec.role for spec in self.inputs if spec.visible and "*" not in spec.role),
                    None)

    @property
    def primary(self) -> Deliverable:
        """The deliverable that is evaluated (the slide, the edited deck, the program)."""
        return next(d for d in self.deliverables if d.primary)

    @property
    def file_suffixes(self) -> frozenset[str]:
        """Its artifacts' suffixes, lower case with the dot (none: any file may be one)."""
        if self.suffixes:
            return frozenset(s.lower() for s in self.suffixes)
        suffix = PurePath(self.primary.pattern).suffix
        if not suffix or set(suffix) & set("*?["):
            return frozenset()
        return frozenset({suffix.lower()})


@dataclass(frozen=True, kw_only=True)
class SuiteRecord(PluginRecord):
    """A suite builder: ``refig suite build NAME``.

    ``factory()`` returns a function ``build(out, **params) -> refig.suite.Suite`` for programs
    (``refig demo`` calls it). ``command`` is a function whose typed, typer-annotated keyword
    parameters become the options of ``refig suite build NAME``; it receives ``out`` (the suite
    directory) and returns it after building. Keep its imports inside its body.
    """

    kind: ClassVar[PluginKind] = PluginKind.SUITE
    command: Callable[..., Any]


@dataclass(frozen=True)
class CliPin:
    """A harness CLI pinned to the one version its adapter was tested with.

    ``refig harness install`` installs ``package@version`` from npm; ``bin`` is the command it
    provides. ``version_pattern`` finds the version in ``bin --version`` output.
    """

    package: str
    version: str
    bin: str
    version_pattern: str = r"(\d+\.\d+\.\d+)"


@dataclass(frozen=True, kw_only=True)
class HarnessRecord(PluginRecord):
    """A harness adapter; ``factory(**options)`` returns a :class:`refig.protocols.Harness`.

    ``cli`` names the pinned command-line program the adapter drives, if any (``refig harness``
    installs it; its ``checks`` report it to ``refig doctor``, beside the core's checks).
    ``local_options`` are options that only locate files on this machine (an oracle baseline's
    ``suite``): the harness gets them, the configuration id never holds them.
    ``runs_agent`` False declares that the harness starts no agent process (only refig's own
    code, or a model call from refig's process): such a harness may run where no sandbox works
    under ``--sandbox auto``; any other is refused there (exit 2) unless ``--sandbox none``.
    """

    kind: ClassVar[PluginKind] = PluginKind.HARNESS
    needs_model: bool = True
    cli: CliPin | None = None
    local_options: frozenset[str] = frozenset()
    runs_agent: bool = True


@dataclass(frozen=True, kw_only=True)
class WorkflowRecord(PluginRecord):
    """A workflow; ``factory(**options)`` returns a :class:`refig.protocols.Workflow`."""

    kind: ClassVar[PluginKind] = PluginKind.WORKFLOW


@dataclass(frozen=True, kw_only=True)
class ExecutorRecord(PluginRecord):
    """An executor; ``factory(**options)`` returns a :class:`refig.protocols.Executor`."""

    kind: ClassVar[PluginKind] = PluginKind.EXECUTOR


@dataclass(frozen=True, kw_only=True)
class RendererRecord(PluginRecord):
    """A renderer; ``factory(**options)`` returns a :class:`refig.protocols.Renderer`."""

    kind: ClassVar[PluginKind] = PluginKind.RENDERER


@dataclass(frozen=True, kw_only=True)
class MetricRecord(PluginRecord):
    """A metric family; ``factory(**options)`` returns a :class:`refig.protocols.Metric`.

    ``default`` metrics run in ``refig evaluate`` and ``refig check`` unless ``--metric`` narrows
    the selection.
    """

    kind: ClassVar[PluginKind] = PluginKind.METRIC
    default: bool = True


@dataclass(frozen=True, kw_only=True)
class JudgeRecord(PluginRecord):
    """A judge; ``factory(argument=None, **options)`` returns a :class:`refig.protocols.Judge`."""

    kind: ClassVar[PluginKind] = PluginKind.JUDGE


@dataclass(frozen=True, kw_only=True)
class ReporterRecord(PluginRecord):
    """A reporter; ``factory(**options)`` returns a :class:`refig.protocols.Reporter`."""

    kind: ClassVar[PluginKind] = PluginKind.REPORTER


RECORD_TYPES: dict[PluginKind, type[PluginRecord]] = {
    PluginKind.FAMILY: TaskFamilyRecord,
    PluginKind.SUITE: SuiteRecord,
    PluginKind.HARNESS: HarnessRecord,
    PluginKind.WORKFLOW: WorkflowRecord,
    PluginKind.EXECUTOR: ExecutorRecord,
    PluginKind.RENDERER: RendererRecord,
    PluginKind.METRIC: MetricRecord,
    PluginKind.JUDGE: JudgeRecord,
    PluginKind.REPORTER: ReporterRecord,
}
