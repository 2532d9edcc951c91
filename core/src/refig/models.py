"""The data of an experiment, as validated pydantic models.

These are the boundary types: they are written to and read from the run store, suite files and
``--json`` output. ``SCHEMA_VERSION`` is stored in every run and suite; a change that breaks reading
old data bumps it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from refig.records import TaskKind

SCHEMA_VERSION = 1

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


# --- suites and configurations ------------------------------------------------------------------


class Task(Record):
    """One item of a suite: a source to rebuild (or a deck to edit) and what is known about it.

    Paths are relative to the suite directory. ``cluster`` groups tasks that share a source figure,
    for cluster bootstraps; it defaults to the task id.
    """

    id: str = Field(pattern=ID_PATTERN)
    kind: TaskKind
    source: str
    source_sha256: str = Field(pattern=SHA256_PATTERN)
    instruction: str | None = None
    annotation: str | None = None
    annotation_sha256: str | None = Field(default=None, pattern=SHA256_PATTERN)
    cluster: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    meta: dict[str, Any] = Field(default_factory=dict)

    @property
    def cluster_id(self) -> str:
        """The source-figure cluster this task belongs to."""
        return self.cluster or self.id


class SuiteManifest(Record):
    """``suite.json``: what a suite is and how it was built."""

    schema_version: int = SCHEMA_VERSION
    name: str
    version: str
    kind: TaskKind
    builder: str
    params: dict[str, Any] = Field(default_factory=dict)
    created_at: datetime = Field(default_factory=utcnow)
    description: str = ""


class Configuration(Record):
    """A (model, harness, workflow) triple plus options, with a stable readable id.

    The id reads ``model@harness/workflow``, e.g. ``gpt-5.5@codex/direct``; options add a sorted
    suffix such as ``[effort=xhigh]`` so two option sets never share an id.
    """

    model: str
    harness: str
    workflow: str
    options: dict[str, str] = Field(default_factory=dict)
    id: str = ""

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
        """Hash of the produced .pptx, if any."""
        return self.outputs.get(Output.SLIDE)


# --- deterministic evaluation -------------------------------------------------------------------


class GateReason(StrEnum):
    """Why an artifact scores zero before any metric or judge sees it."""

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
    reason: GateReason | None = None
    detail: str = ""
    slides: int | None = None


class Render(Record):
    """R(P): the rendering of one artifact, keyed by artifact and renderer settings."""

    artifact_sha256: str
    renderer: str
    settings: str
    png_sha256: str | None = None
    width_px: int | None = None
    height_px: int | None = None
    renderer_version: str = ""
    fonts: tuple[str, ...] = ()
    seconds: float = 0.0
    error: ErrorInfo | None = None


class ObjectKind(StrEnum):
    """Native object kinds read from the slide XML."""

    TEXT_BOX = "text_box"
    AUTO_SHAPE = "auto_shape"
    CONNECTOR = "connector"
    FREEFORM = "freeform"
    GROUP = "group"
    PICTURE = "picture"
    TABLE = "table"
    CHART = "chart"
    SMARTART = "smartart"
    PLACEHOLDER = "placeholder"
    OLE = "ole"
    OTHER = "other"


class Rect(Record):
    """An axis-aligned box in slide coordinates (EMU), before rotation."""

    x: float
    y: float
    w: float
    h: float


class Endpoint(Record):
    """A connector end bound to a shape's connection site (``a:stCxn``/``a:endCxn``)."""

    shape_id: int
    site: int


class SlideObject(Record):
    """One native object of a slide; groups hold their children."""

    id: int | None = None
    name: str = ""
    kind: ObjectKind
    rect: Rect | None = None
    rotation: float = 0.0
    flip_h: bool = False
    flip_v: bool = False
    z: int = 0
    text: str = ""
    geometry: str | None = None
    placeholder: str | None = None
    image_sha256: str | None = None
    image_fill: bool = False
    start: Endpoint | None = None
    end: Endpoint | None = None
    start_arrow: str | None = None
    end_arrow: str | None = None
    dash: str | None = None
    hidden: bool = False
    in_alternate_content: bool = False
    children: tuple[SlideObject, ...] = ()
    #: Part name of ``image_sha256`` (``ppt/media/image1.png``), for reading the bytes.
    image_part: str | None = None
    #: ``slide`` for the slide's own objects; ``layout``/``master`` for the non-placeholder shapes
    #: those paint behind the slide (negative ``z``, not in :meth:`ObjectTree.counts`).
    layer: Literal["slide", "layout", "master"] = "slide"
    #: Inside ``mc:AlternateContent``: which branch, and whether it is the branch LibreOffice shows.
    alternate_branch: Literal["choice", "fallback"] | None = None
    alternate_selected: bool = True


class ObjectTree(Record):
    """O(P): every native object of the slide, in paint order (back to front)."""

    slide_width: int
    slide_height: int
    objects: tuple[SlideObject, ...] = ()
    background_image_sha256: str | None = None
    background_image_part: str | None = None

    def walk(self) -> Iterator[SlideObject]:
        """Every object, groups before their children, depth first in paint order."""
        stack = list(reversed(self.objects))
        while stack:
            obj = stack.pop()
            yield obj
            stack.extend(reversed(obj.children))

    def shown(self, *, inherited: bool = False) -> Iterator[SlideObject]:
        """The objects that paint: not hidden (nor inside a hidden group), and of each
        ``mc:AlternateContent`` only the shown branch; groups before their children. The slide's
        own objects, or with ``inherited`` also the shapes its layout and master paint behind it
        (whose text shows too)."""
        stack = [o for o in reversed(self.objects) if inherited or o.layer == "slide"]
        while stack:
            obj = stack.pop()
            if obj.hidden or not obj.alternate_selected:
                continue
            yield obj
            stack.extend(reversed(obj.children))

    def counts(self) -> dict[str, int]:
        """The objects the slide shows (:meth:`shown`) by kind. A connector is bound when both
        ends name a shape id that exists on the slide."""
        own = list(self.shown())
        ids = {o.id for o in own if o.id is not None and o.kind != ObjectKind.CONNECTOR}
        kinds = [o.kind for o in own]
        connectors = [o for o in own if o.kind == ObjectKind.CONNECTOR]
        return {
            "text_boxes": kinds.count(ObjectKind.TEXT_BOX),
            "auto_shapes": kinds.count(ObjectKind.AUTO_SHAPE),
            "connectors": len(connectors),
            "bound_connectors": sum(
                1
                for c in connectors
                if c.start is not None
                and c.end is not None
                and c.start.shape_id in ids
                and c.end.shape_id in ids
            ),
            "freeforms": kinds.count(ObjectKind.FREEFORM),
            "groups": kinds.count(ObjectKind.GROUP),
            "pictures": kinds.count(ObjectKind.PICTURE),
            "tables": kinds.count(ObjectKind.TABLE),
            "charts": kinds.count(ObjectKind.CHART),
            "smartart": kinds.count(ObjectKind.SMARTART),
        }


class Inspection(Record):
    """The gate verdict and object tree of one artifact, keyed by its hash and inspector version."""

    artifact_sha256: str
    inspector: str
    gate: GateResult
    tree: ObjectTree | None = None
    seconds: float = 0.0


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


class JudgmentStatus(StrEnum):
    OK = "ok"
    FAILED = "failed"


class Judgment(Record):
    """One judge's verdict on one artifact, keyed by artifact, judge, rubric, inputs and repeat.

    ``judge_key`` hashes the judge's name and parameters, so changing the model or temperature
    judges again while a re-run of the same evaluation makes no call; ``inputs_sha256`` hashes
    what the judge was shown besides the slide (its rendering and the source figure), so a new
    rendering is judged again too.
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

    @property
    def active(self) -> bool:
        """True unless the annotator took the vote back."""
        return self.retracted_at is None
