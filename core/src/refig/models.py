"""The data of an experiment, as validated pydantic models.

These are the boundary types: they are written to and read from the run store, suite files and
``--json`` output. ``SCHEMA_VERSION`` is stored in every run and suite; a change that breaks reading
old data bumps it.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

SCHEMA_VERSION = 2
"""2: tasks hold inputs by role and a family, renders hold pages, inspections a structure
(:mod:`refig.migration` brings version 1 runs and suites forward)."""

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._+-]*$"
SHA256_PATTERN = r"^[0-9a-f]{64}$"


def utcnow() -> datetime:
    """The current time, timezone-aware, in UTC."""
    return datetime.now(UTC)


def stable_hash(value: Any) -> str:
    """sha256 of a JSON-serialisable value with sorted keys: a key that survives restarts."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


class Record(BaseModel):
    """Base of every stored model: immutable, and strict about unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


R = TypeVar("R", bound=BaseModel)


# --- suites and configurations ------------------------------------------------------------------


class Asset(Record):
    """One input file of a task, relative to the suite directory; ``visible`` inputs are given to
    the agent (copied into its workspace), hidden ones only reach evaluation."""

    path: str
    sha256: str = Field(pattern=SHA256_PATTERN)
    visible: bool = True


class Task(Record):
    """One item of a suite: the family it belongs to and its input files by role.

    Roles are the family's (figure-to-slide: ``figure`` visible, ``annotation`` hidden).
    ``cluster`` groups tasks that share a source, for cluster bootstraps; it defaults to the id.
    """

    id: str = Field(pattern=ID_PATTERN)
    family: str = Field(pattern=ID_PATTERN)
    inputs: dict[str, Asset] = Field(default_factory=dict)
    instruction: str | None = None
    cluster: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    meta: dict[str, Any] = Field(default_factory=dict)

    def input(self, role: str) -> Asset | None:
        """The input of ``role``, or None when the task has none."""
        return self.inputs.get(role)

    def visible_inputs(self) -> dict[str, Asset]:
        """The inputs the agent is given, by role."""
        return {role: asset for role, asset in self.inputs.items() if asset.visible}

    @property
    def cluster_id(self) -> str:
        """The source cluster this task belongs to."""
        return self.cluster or self.id


class SuiteManifest(Record):
    """``suite.json``: what a suite is and how it was built."""

    schema_version: int = SCHEMA_VERSION
    name: str
    version: str
    family: str = Field(pattern=ID_PATTERN)
    builder: str
    params: dict[str, Any] = Field(default_factory=dict)
    created_at: datetime = Field(default_factory=utcnow)
    description: str = ""


class Configuration(Record):
    """A (model, harness, workflow) triple plus options, with a stable readable id.

    The id reads ``model@harness/workflow``, e.g. ``gpt-5.5@codex/direct``; options add a sorted
    suffix such as ``[effort=xhigh]`` so two option sets never share an id. ``local`` holds the
    options that only say where something is on this machine (a harness's ``local_options``,
    e.g. an oracle's ``suite=DIR``): handed to the harness with the others, but neither stored
    nor part of the id, so one suite at two paths is one configuration and its run resumes.
    """

    model: str
    harness: str
    workflow: str
    options: dict[str, str] = Field(default_factory=dict)
    local: dict[str, str] = Field(default_factory=dict, exclude=True)
    id: str = ""

    @property
    def harness_options(self) -> dict[str, str]:
        """Every option the harness is made with: the identifying ones and the local ones."""
        return {**self.options, **self.local}

    @model_validator(mode="after")
    def _derive_id(self) -> Configuration:
        expected = self.model + "@" + self.harness + "/" + self.workflow
        if self.options:
            pairs = ",".join(f"{k}={v}" for k, v in sorted(self.options.items()))
            expected += f"[{pairs}]"
        if self.id and self.id != expected:
            raise ValueError(f"configuration id {self.id!r} does not match {expected!r}")
        object.__setattr__(self, "id", expected)
        return self


# --- attempts -----------------------------------------------------------------------------------


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
    """Roles of the files an attempt leaves in the object store."""

    SLIDE = "slide"
    DECK = "deck"
    PROGRAM = "program"
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
    started_at: datetime = Field(default_factory=utcnow)
    finished_at: datetime = Field(default_factory=utcnow)

    @property
    def slide_sha256(self) -> str | None:
        """Hash of the produced .pptx, if any (the figure-to-slide family's artifact)."""
        return self.outputs.get(Output.SLIDE)

    def output(self, role: str) -> str | None:
        """Hash of the output of ``role`` (``slide``, ``deck``, ``program``...), if any."""
        return self.outputs.get(role)


# --- deterministic evaluation -------------------------------------------------------------------


class GateReason(StrEnum):
    """Why a .pptx scores zero before any metric or judge sees it; a family may add its own
    reasons (``GateResult.reason`` is a string)."""

    MISSING = "missing"
    NOT_A_ZIP = "not_a_zip"
    TOO_LARGE = "too_large"
    CORRUPT = "corrupt"
    NO_SLIDES = "no_slides"
    MULTIPLE_SLIDES = "multiple_slides"
    RENDER_FAILED = "render_failed"
    RENDER_TIMEOUT = "render_timeout"


class GateResult(Record):
    """g(P): pass, or a typed reason with a human-readable detail."""

    passed: bool
    reason: str | None = None
    detail: str = ""
    #: Pages of the artifact when known (slides of a deck).
    slides: int | None = None


class Page(Record):
    """One rendered page of an artifact (a slide, a figure), as a PNG in the object store."""

    index: int = Field(ge=0)
    png_sha256: str = Field(pattern=SHA256_PATTERN)
    width_px: int
    height_px: int


class Render(Record):
    """R(P): the rendering of one artifact by page, keyed by artifact and renderer settings.

    ``log_sha256`` holds what the renderer or interpreter printed, when it kept it.
    """

    artifact_sha256: str
    renderer: str
    settings: str
    pages: tuple[Page, ...] = ()
    log_sha256: str | None = None
    renderer_version: str = ""
    fonts: tuple[str, ...] = ()
    seconds: float = 0.0
    error: ErrorInfo | None = None

    @property
    def first(self) -> Page | None:
        """The first page, when the artifact rendered."""
        return self.pages[0] if self.pages else None

    @property
    def png_sha256(self) -> str | None:
        """The first page's PNG (a one-page artifact's rendering)."""
        return self.pages[0].png_sha256 if self.pages else None


class Inspection(Record):
    """The gate verdict and structure of one artifact, keyed by its hash and inspector version.

    ``structure`` is the family's typed structure, dumped (the slide's object tree for
    figure-to-slide); :meth:`parsed` reads it back as the family's model.
    """

    artifact_sha256: str
    inspector: str
    gate: GateResult
    structure: dict[str, Any] | None = None
    seconds: float = 0.0

    def parsed(self, model: type[R]) -> R | None:
        """``structure`` validated as ``model``, or None when there is none."""
        return None if self.structure is None else model.model_validate(self.structure)


class MetricValue(Record):
    """One number from a metric plugin, keyed by artifact, metric, name and reference."""

    artifact_sha256: str
    metric: str
    name: str
    value: float | None
    reference_sha256: str | None = None
    version: str = ""
    detail: dict[str, Any] = Field(default_factory=dict)


# --- judgments and preferences ------------------------------------------------------------------


class AxisScore(Record):
    """A judge's score on one rubric axis, with its reason."""

    axis: str
    score: float
    max_score: float
    rationale: str = ""
    #: Set when the axis was measured against something other than an exact reference:
    #: ``ocr``, the source's words as OCR read them. Such an axis stays out of the total.
    reference: str | None = None


class JudgmentStatus(StrEnum):
    OK = "ok"
    FAILED = "failed"


class Judgment(Record):
    """One judge's verdict on one artifact, keyed by artifact, judge, rubric, inputs and repeat.

    ``judge_key`` hashes the judge's name, parameters and plugin version, so changing the model,
    the temperature or the judge's code judges again while a re-run of the same evaluation makes
    no call; ``inputs_sha256`` hashes the evidence the judge was shown besides the artifact (its
    rendering, the references), so a new rendering is judged again too.
    """

    artifact_sha256: str
    judge: str
    judge_key: str
    rubric_sha256: str
    rubric_version: str
    inputs_sha256: str = ""
    repeat: int = Field(ge=0)
    status: JudgmentStatus
    scores: tuple[AxisScore, ...] = ()
    total: float | None = None
    raw_total: float | None = None
    capped: bool = False
    proxy: bool = False
    #: Made by a judge whose scores are a function of its inputs: repeats would agree trivially.
    deterministic: bool = False
    #: What a proxy judge can and cannot see, printed under every table of its scores.
    sight: str | None = None
    error: ErrorInfo | None = None
    model: str | None = None
    usage: Usage = Field(default_factory=Usage)
    cost_usd: float | None = None
    latency_seconds: float = 0.0
    #: Model calls this judgment took, retries of bad answers and refused calls included
    #: (0 for a judge that calls no model).
    calls: int = Field(default=1, ge=0)
    created_at: datetime = Field(default_factory=utcnow)


class Preference(Record):
    """A blinded human comparison: configurations shown left (A) and right (B), and the choice.

    ``left`` and ``right`` are the order the page showed. Undo never deletes a vote: it stores the
    same vote again with ``retracted_at`` set, so a retraction travels with export and import, and
    analyses read only active votes (``retracted_at`` None).
    """

    id: str
    annotator: str
    task_id: str
    left: str
    right: str
    choice: Literal["A", "B", "tie"]
    created_at: datetime = Field(default_factory=utcnow)
    #: Hashes of the slides shown left and right (the artifacts the vote is about).
    left_artifact: str | None = None
    right_artifact: str | None = None
    #: The ``refig annotate`` process that stored the vote.
    session: str | None = None
    #: Seconds from showing the pair to the vote, as the page measured them.
    seconds: float | None = None
    retracted_at: datetime | None = None
    #: Whether the page's audits showed derived verdicts (source pasted, flattened, text recall)
    #: besides the object counts; None on votes stored before this was recorded (they did).
    audit_verdicts: bool | None = None

    @property
    def active(self) -> bool:
        """True unless the annotator took the vote back."""
        return self.retracted_at is None


class Rating(Record):
    """A blinded expert rating of one task x configuration: an integer per rubric axis.

    ``scores`` maps the family rubric's axis ids to whole points in ``0..axis max``; ``rubric``
    names the rubric (``name@version``) the page took the axes from. Undo stores the same rating
    again with ``retracted_at`` set, exactly as for :class:`Preference`.
    """

    id: str
    annotator: str
    task_id: str
    config_id: str
    #: Hash of the artifact rated (the result the judges scored).
    artifact: str
    rubric: str
    scores: dict[str, int]
    created_at: datetime = Field(default_factory=utcnow)
    session: str | None = None
    seconds: float | None = None
    retracted_at: datetime | None = None

    @property
    def active(self) -> bool:
        """True unless the annotator took the rating back."""
        return self.retracted_at is None
