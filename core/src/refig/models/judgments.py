"""A judge's verdict on an artifact, axis by axis."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import Field

from refig.models.attempts import ErrorInfo, Usage
from refig.models.record import Record, utcnow


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
