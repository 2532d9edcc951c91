"""The MMOS jury: several LLM judges score the same pair, and MMOS is the mean of their totals.

Each member is refig's rubric judge on one litellm model with the MMOS rubric: a strict JSON
schema of five criteria (chart types, layout, text content, data, style; 0-20 each), an answer
whose total is not the sum of its parts re-asked with the problem quoted. As FigCodeBench's
judge, it sees the two images only, the reference image first and the generated image second,
each labelled, at temperature 0, each image sent as its own bytes up to 8192 px a side. The
jury's criterion scores are the means of its members' and its total is MMOS. A failed execution
scores 0 without a model call. With ``swapped`` the generated image is shown first (the
position-bias probe, judge `mmos-swapped`); the report gives the mean shift. With
``with_program`` the generated program is shown too (judge `mmos-with-program`, refig's
variant, never the benchmark's MMOS). When one member fails, the jury's judgment fails with that
member's typed error; the members that answered are kept in memory, so the engine's retry asks
only the member that failed.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from refig.plugin import (
    AxisScore,
    Judge,
    JudgeRequest,
    Judgment,
    JudgmentStatus,
    Usage,
    load_rubric,
    stable_hash,
)

VERSION = "2"
#: A member's defaults: the benchmark's temperature, and images sent as they are (no downscaling
#: below 8192 px, the largest side a request may carry).
MEMBER_DEFAULTS = {"temperature": 0, "max_image_side": 8192}
CRITERIA = ("chart_types", "layout", "text_content", "data", "style")


def failed_execution(request: JudgeRequest, key: str, name: str) -> Judgment:
    """The zero judgment of a program that did not run or made no image (no model call)."""
    rubric = load_rubric(request.rubric_path, family="figure-to-code")
    gate = request.artifact.gate
    why = f"the program did not make an image ({gate.reason}): scored 0"
    scores = tuple(AxisScore(axis=a.id, score=0.0, max_score=a.max, rationale=why)
                   for a in rubric.axes)
    return Judgment(artifact_sha256=request.artifact.sha256, judge=name, judge_key=key,
                    rubric_sha256=rubric.sha256, rubric_version=rubric.version,
                    repeat=request.repeat, status=JudgmentStatus.OK, scores=scores, total=0.0,
                    raw_total=0.0, calls=0)


def combine(members: Sequence[tuple[str, Judgment]], base: Judgment) -> Judgment:
    """The jury's judgment from its members' successful ones: mean per criterion and total."""
    axes = [s.axis for s in members[0][1].scores]
    scores = []
    for axis in axes:
        items = [(name, next(s for s in j.scores if s.axis == axis)) for name, j in members]
        mean = sum(s.score for _, s in items) / len(items)
        why = "; ".join(f"{name}: {s.score:g} ({s.rationale})" for name, s in items)
        scores.append(AxisScore(axis=axis, score=mean, max_score=items[0][1].max_score,
                                rationale=why))
    total = sum(j.total or 0.0 for _, j in members) / len(members)
    costs = [j.cost_usd for _, j in members]
    usage = Usage()
    for _, j in members:
        usage += j.usage
    return base.model_copy(update={
        "status": JudgmentStatus.OK, "scores": tuple(scores), "total": total,
        "raw_total": total, "error": None, "model": "+".join(n for n, _ in members),
        "usage": usage, "cost_usd": None if None in costs else sum(c or 0.0 for c in costs),
        "calls": sum(j.calls for _, j in members),
        "latency_seconds": round(sum(j.latency_seconds for _, j in members), 3),
    })


class MmosJury(Judge):
    """A jury of judges (objects with ``key`` and ``judge(request)``), one per model."""

    def __init__(self, name: str, members: Sequence[tuple[str, Any]], *, swapped: bool = False,
                 with_program: bool = False):
        self.name = name
        self.members = list(members)
        self.swapped = swapped
        self.with_program = with_program
        self.key = stable_hash({"judge": name, "version": VERSION, "swapped": swapped,
                                "with_program": with_program,
                                "members": [m.key for _, m in self.members]})
        self._answered: dict[tuple[str, int, str, tuple[str, ...]], Judgment] = {}
        self._lock = threading.Lock()

    def _request(self, request: JudgeRequest) -> JudgeRequest:
        rubric = request.rubric_path or load_rubric(None, family="figure-to-code").path
        evidence = request.evidence
        if not self.with_program:  # the benchmark's judge sees the images only
            evidence = replace(evidence, text="", text_label="")
        if self.swapped:
            evidence = replace(evidence, images=tuple(reversed(evidence.images)))
        return replace(request, evidence=evidence, rubric_path=rubric)

    def judge(self, request: JudgeRequest) -> Judgment:
        if not request.artifact.gate.passed:
            return failed_execution(request, self.key, self.name)
        asked = self._request(request)
        shown = tuple(str(path) for _, path in asked.evidence.images)
        answers: list[tuple[str, Judgment]] = []
        for model, member in self.members:
            slot = (request.artifact.sha256, request.repeat, model, shown)
            with self._lock:
                done = self._answered.get(slot)
            if done is None:
                done = member.judge(asked)
                if done.status is not JudgmentStatus.OK:
                    return done.model_copy(update={
                        "judge": self.name, "judge_key": self.key,
                        "error": done.error.model_copy(update={
                            "message": f"jury member {model}: {done.error.message}"})
                        if done.error else None})
                with self._lock:
                    self._answered[slot] = done
            answers.append((model, done))
        with self._lock:
            for model, _ in self.members:
                self._answered.pop((request.artifact.sha256, request.repeat, model, shown), None)
        return combine(answers, answers[0][1].model_copy(update={"judge": self.name,
                                                                 "judge_key": self.key}))
