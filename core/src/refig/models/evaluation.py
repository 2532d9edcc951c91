"""Deterministic evaluation of an artifact: the gate, its rendering, its inspection and metric
values."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import Field

from refig.models.attempts import ErrorInfo
from refig.models.record import SHA256_PATTERN, R, Record


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

    ``structure`` is the family's typed structure, dumped (a slide family's object tree of the
    slide); :meth:`parsed` reads it back as the family's model.
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
    #: Files the value's detail lists by sha256 under ``objects`` (an edit probe's renderings):
    #: the run store keeps them in its objects when it keeps the value; not part of the row.
    objects: tuple[bytes, ...] = Field(default=(), exclude=True, repr=False)
