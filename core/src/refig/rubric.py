"""The judging rubric as data: load, validate, hash, compile to a strict JSON schema, check answers.

A rubric is a TOML file (each task family ships its own, named by its record's ``rubric``):
axes with their maximum points and what earns and loses points, instructions for the judge, and
an optional cap. Its ``sha256`` is computed over the parsed,
validated content, so comments and formatting do not change it; every judgment stores it
with the rubric's version.
"""

from __future__ import annotations

import functools
import json
import math
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model, model_validator

from refig.errors import RefigError
from refig.models import AxisScore, stable_hash

AXIS_ID = r"^[a-z][a-z0-9_]*$"
TOTAL = "total"
_FENCE = re.compile(r"^\s*```(?:json)?\s*\n(.*?)\n?```\s*$", re.DOTALL)


class _Spec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RubricAxis(_Spec):
    """One axis: its id (the JSON key), title, maximum points, and what earns and loses points."""

    id: str = Field(pattern=AXIS_ID)
    title: str
    max: float = Field(gt=0)
    earns: tuple[str, ...] = ()
    loses: tuple[str, ...] = ()


class CapRule(_Spec):
    """The flattening cap: when metric ``flag`` is set, ``zero_axes`` score 0 and the total is
    at most ``max_total``."""

    flag: str
    zero_axes: tuple[str, ...] = ()
    max_total: float = Field(ge=0)
    reason: str = ""


class RubricSpec(_Spec):
    """The content of a rubric file."""

    name: str
    version: str = Field(min_length=1)
    score_type: Literal["integer", "number"] = "integer"
    total: float | None = None
    instructions: str
    axes: tuple[RubricAxis, ...] = Field(min_length=1)
    cap: CapRule | None = None

    @model_validator(mode="after")
    def _consistent(self) -> RubricSpec:
        ids = [axis.id for axis in self.axes]
        if len(set(ids)) != len(ids) or TOTAL in ids:
            raise ValueError(f"axis ids must be unique and not {TOTAL!r}: {ids}")
        axes_sum = sum(axis.max for axis in self.axes)
        if self.total is not None and not math.isclose(self.total, axes_sum):
            raise ValueError(f"total {self.total} is not the sum of the axis maxima ({axes_sum})")
        if self.score_type == "integer" and any(not float(a.max).is_integer() for a in self.axes):
            raise ValueError("integer rubrics need whole-number axis maxima")
        if self.cap is not None:
            unknown = set(self.cap.zero_axes) - set(ids)
            if unknown:
                raise ValueError(f"cap.zero_axes names unknown axes {sorted(unknown)}")
            if self.cap.max_total > axes_sum:
                raise ValueError(f"cap.max_total {self.cap.max_total} exceeds the total {axes_sum}")
        return self


class AnswerError(ValueError):
    """A judge's answer that does not fit the rubric; the message is quoted back to the model."""


@dataclass(frozen=True)
class Scored:
    """A validated answer after the cap: what a Judgment stores."""

    scores: tuple[AxisScore, ...]
    total: float
    raw_total: float
    capped: bool


def _number(value: float, score_type: str) -> float | int:
    return int(value) if score_type == "integer" and float(value).is_integer() else value


@dataclass(frozen=True)
class Rubric:
    """A loaded, validated rubric and its content hash."""

    spec: RubricSpec
    sha256: str
    path: Path | None = None

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def version(self) -> str:
        return self.spec.version

    @property
    def axes(self) -> tuple[RubricAxis, ...]:
        return self.spec.axes

    @property
    def max_total(self) -> float:
        return sum(axis.max for axis in self.spec.axes)

    # --- the schema a judge must answer -------------------------------------------------------

    def _score_schema(self, maximum: float) -> dict[str, Any]:
        return {
            "type": self.spec.score_type,
            "minimum": 0,
            "maximum": _number(maximum, self.spec.score_type),
        }

    def schema(self) -> dict[str, Any]:
        """The strict JSON schema of an answer: per axis a rationale and a score, then the total."""
        properties: dict[str, Any] = {
            axis.id: {
                "type": "object",
                "description": f"{axis.title}, 0 to {_number(axis.max, self.spec.score_type)}",
                "properties": {
                    "rationale": {"type": "string"},
                    "score": self._score_schema(axis.max),
                },
                "required": ["rationale", "score"],
                "additionalProperties": False,
            }
            for axis in self.axes
        }
        properties[TOTAL] = self._score_schema(self.max_total)
        return {
            "type": "object",
            "properties": properties,
            "required": [*(axis.id for axis in self.axes), TOTAL],
            "additionalProperties": False,
        }

    def response_format(self) -> dict[str, Any]:
        """The OpenAI ``response_format`` that constrains an answer to :meth:`schema`."""
        name = re.sub(r"[^A-Za-z0-9_-]", "_", f"{self.name}_v{self.version}")[:64]
        return {
            "type": "json_schema",
            "json_schema": {"name": name, "strict": True, "schema": self.schema()},
        }

    def prompt(self) -> str:
        """The rubric as the judge reads it: instructions, axes, and the answer's shape."""
        kind = "whole points" if self.spec.score_type == "integer" else "points"
        lines = [
            self.spec.instructions.strip(),
            "",
            f"Axes (score each from 0 to its maximum, {kind}):",
        ]
        for index, axis in enumerate(self.axes, 1):
            top = _number(axis.max, self.spec.score_type)
            lines.append(f"{index}. {axis.id} ({axis.title}), 0 to {top}")
            if axis.earns:
                lines.append("   Earns points: " + "; ".join(axis.earns) + ".")
            if axis.loses:
                lines.append("   Loses points: " + "; ".join(axis.loses) + ".")
        example: dict[str, object] = {
            axis.id: {"rationale": "...", "score": 0} for axis in self.axes
        }
        example[TOTAL] = 0
        lines += [
            "",
            "Answer with one JSON object and nothing else, shaped like "
            + json.dumps(example, separators=(",", ":"))
            + f", where {TOTAL} is the exact sum of the axis scores"
            + f" (at most {_number(self.max_total, self.spec.score_type)}).",
        ]
        return "\n".join(lines)

    # --- checking answers ---------------------------------------------------------------------

    @cached_property
    def _answer_model(self) -> type[BaseModel]:
        # Strict: a score of "12" or true is a wrong answer, not something to coerce. 12.0 is
        # an integer to JSON Schema, so whole numbers are checked in check(), not by type.
        strict = ConfigDict(extra="forbid", strict=True)
        fields: dict[str, Any] = {}
        for axis in self.axes:
            item = create_model(
                f"Axis_{axis.id}",
                __config__=strict,
                rationale=(str, ...),
                score=(float, Field(ge=0, le=axis.max)),
            )
            fields[axis.id] = (item, ...)
        fields[TOTAL] = (float, Field(ge=0, le=self.max_total))
        return create_model("RubricAnswer", __config__=strict, **fields)

    def parse(self, text: str | None) -> tuple[AxisScore, ...]:
        """Validate a judge's raw answer; raise :class:`AnswerError` saying what is wrong."""
        if not text or not text.strip():
            raise AnswerError("the answer was empty; reply with the JSON object")
        fenced = _FENCE.match(text)
        try:
            data = json.loads(fenced.group(1) if fenced else text)
        except json.JSONDecodeError as exc:
            raise AnswerError(
                f"the answer is not valid JSON ({exc.msg} at char {exc.pos})"
            ) from exc
        try:
            answer = self._answer_model.model_validate(data)
        except ValidationError as exc:
            problems = [
                f"{'.'.join(str(p) for p in e['loc']) or 'answer'}: {e['msg']}"
                + (f" (got {json.dumps(e['input'])[:80]})" if e["type"] != "missing" else "")
                for e in exc.errors(include_url=False)
            ]
            raise AnswerError("; ".join(problems[:8])) from exc
        scores = tuple(
            AxisScore(
                axis=axis.id,
                score=float(getattr(answer, axis.id).score),
                max_score=axis.max,
                rationale=getattr(answer, axis.id).rationale.strip(),
            )
            for axis in self.axes
        )
        self.check(scores, float(getattr(answer, TOTAL)))
        return scores

    def check(self, scores: tuple[AxisScore, ...], total: float | None) -> None:
        """Every axis present once and within range, and ``total`` their :func:`counted_total`."""
        by_axis = {s.axis: s for s in scores}
        expected = [axis.id for axis in self.axes]
        if sorted(by_axis) != sorted(expected) or len(scores) != len(expected):
            got = [s.axis for s in scores]
            raise AnswerError(f"the axes must be exactly {expected}, got {got}")
        for axis in self.axes:
            score = by_axis[axis.id].score
            if not 0 <= score <= axis.max or math.isnan(score):
                raise AnswerError(f"{axis.id}.score {score:g} is outside 0..{axis.max:g}")
            if self.spec.score_type == "integer" and not float(score).is_integer():
                raise AnswerError(f"{axis.id}.score {score:g} is not a whole number")
        axes_sum = counted_total(scores)
        if total is None or not math.isclose(total, axes_sum, abs_tol=1e-6):
            raise AnswerError(
                f"{TOTAL} {total:g} is not the sum of the axis scores ({axes_sum:g})"
                if total is not None
                else f"{TOTAL} is missing"
            )

    # --- the cap ------------------------------------------------------------------------------

    def is_flattened(self, metrics: Mapping[str, float | None]) -> bool:
        """True when the cap's flag metric is set (missing or None means not flattened)."""
        if self.spec.cap is None:
            return False
        value = metrics.get(self.spec.cap.flag)
        return value is not None and value >= 0.5

    def finish(self, scores: tuple[AxisScore, ...], *, flattened: bool) -> Scored:
        """Apply the cap to checked scores: the stored axis scores, total and raw total."""
        position = {axis.id: k for k, axis in enumerate(self.axes)}
        ordered = tuple(sorted(scores, key=lambda s: position[s.axis]))
        raw_total = counted_total(ordered)
        cap = self.spec.cap
        if not flattened or cap is None:
            return Scored(ordered, raw_total, raw_total, capped=False)
        note = f"[capped: {cap.reason or 'flattened'}]"
        capped = tuple(
            s.model_copy(update={"score": 0.0, "rationale": f"{note} {s.rationale}".strip()})
            if s.axis in cap.zero_axes
            else s
            for s in ordered
        )
        total = min(counted_total(capped), cap.max_total)
        return Scored(capped, total, raw_total, capped=True)


def counted_total(scores: Sequence[AxisScore]) -> float:
    """The sum of the axis scores, leaving out axes measured against an inexact reference.

    An axis with ``reference`` set (``ocr``: the source's words as OCR read them) is near full
    marks by construction for a configuration that read the figure with the same OCR, so it moves
    no total: the other axes' points are scaled to the rubric's full range instead (when every
    axis is inexact, nothing is left out).
    """
    exact = [s for s in scores if s.reference is None] or list(scores)
    full, held = sum(s.max_score for s in scores), sum(s.max_score for s in exact)
    points = sum(s.score for s in exact)
    return points if held == full else points * full / held


MAX_RUBRIC_BYTES = 1_000_000
#: Loaded rubrics by (resolved path, mtime, size): a judge loads the rubric per judgment.
_LOADED: dict[tuple[str, int, int], Rubric] = {}


def _read(text: str, path: Path | None) -> Rubric:
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RefigError(
            f"the rubric is not valid TOML: {exc}", path=path, fix="fix the TOML syntax"
        ) from exc
    try:
        spec = RubricSpec.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'rubric'}: {e['msg']}"
            for e in exc.errors(include_url=False)
        )
        raise RefigError(
            f"the rubric is invalid: {problems}",
            path=path,
            fix="compare it with a task family's packaged rubric (its record's rubric)",
        ) from exc
    return Rubric(spec=spec, sha256=stable_hash(spec.model_dump(mode="json")), path=path)


@functools.cache
def family_rubric(family: str) -> Path:
    """The rubric file the task family ``family`` declares (its record's ``rubric``)."""
    from refig.plugins import Registry
    from refig.records import TaskFamilyRecord

    record = Registry.load(warn=lambda _: None).family(family).record
    rubric = record.rubric if isinstance(record, TaskFamilyRecord) else None
    if rubric is None:
        raise RefigError(f"the {family} family declares no rubric",
                         fix="give --rubric a rubric TOML file")
    return Path(rubric)


def load_rubric(path: Path | str | None = None, *, family: str = "") -> Rubric:
    """The rubric at ``path``, or the rubric of task family ``family`` when ``path`` is None
    (no family then: a usage error listing the installed families)."""
    path = Path(path) if path is not None else family_rubric(family)
    try:
        stat = path.stat()
        key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
        if key not in _LOADED:
            if stat.st_size > MAX_RUBRIC_BYTES:
                raise RefigError("the rubric is larger than 1 MB", path=path, fix="check the file")
            _LOADED[key] = _read(path.read_text(encoding="utf-8", errors="replace"), path)
    except OSError as exc:  # missing, a directory, unreadable
        raise RefigError(
            f"cannot read the rubric: {exc.strerror or exc}",
            path=path,
            fix="give --rubric a readable TOML file",
        ) from exc
    return _LOADED[key]
