"""Judge scores as arrays: configuration x task x axis, per judge, from the chosen outcomes.

A cell is the mean over the judge's successful repeats of that artifact on that task's inputs
(failed judgments are counted, never averaged in as zeros). A gate failure is zero on every
axis, but an infrastructure failure (:mod:`.failures`) is NaN unless failures are
counted. A cell with neither is NaN (unscored) and drops out of every mean and pairing.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from numpy.typing import NDArray
from refig.models import Judgment, JudgmentStatus

from refig_toolkit_analysis.analysis.rundata import RunData

TOTAL = "total"


def judge_label(judgment: Judgment, keys_per_name: dict[str, set[str]]) -> str:
    """The judge's name, suffixed with its key when one name was run with several settings."""
    if len(keys_per_name.get(judgment.judge, ())) > 1:
        return f"{judgment.judge}~{judgment.judge_key[:6]}"
    return judgment.judge


@dataclass
class JudgeScores:
    """One judge's scores on a run.

    ``mean[c, t, a]`` (axes then the total in the last slot), ``repeats[c, t, r]`` the totals of
    each successful repeat (NaN where absent), ``gated[c, t]`` gate failures, ``failed[c, t]``
    failed judgments, ``infrastructure[c, t]`` infrastructure failures left unscored, and per
    artifact the judgments themselves for the HTML report.
    """

    judge: str
    configs: tuple[str, ...]
    tasks: tuple[str, ...]
    axes: tuple[str, ...]
    max_points: NDArray[np.float64]
    mean: NDArray[np.float64]
    repeats: NDArray[np.float64]
    gated: NDArray[np.bool_]
    failed: NDArray[np.int64]
    proxy: bool = False
    deterministic: bool = False
    sight: str | None = None
    #: Axis -> what it was measured against when some judgment's reference was inexact
    #: (``ocr``); such an axis is out of every total (see ``refig.rubric.counted_total``).
    inexact: dict[str, str] = field(default_factory=dict)
    #: Cells whose attempt failed for the provider or set-up and are left out (NaN).
    infrastructure: NDArray[np.bool_] = field(default_factory=lambda: np.zeros((0, 0), bool))

    @property
    def total(self) -> NDArray[np.float64]:
        """``(configs, tasks)`` mean totals."""
        return self.mean[:, :, -1]

    @property
    def axis_points(self) -> NDArray[np.float64]:
        """``(configs, tasks, axes)`` mean points per axis, without the total."""
        return self.mean[:, :, :-1]

    @property
    def full_marks(self) -> float:
        return float(self.max_points.sum())

    def axis_index(self, *hints: str) -> int | None:
        """The first axis whose name contains one of ``hints`` (case-insensitive)."""
        for i, name in enumerate(self.axes):
            if any(h in name.lower() for h in hints):
                return i
        return None

    def config_index(self, config_id: str) -> int:
        return self.configs.index(config_id)

    @cached_property
    def _task_positions(self) -> dict[str, int]:
        return {t: i for i, t in enumerate(self.tasks)}

    def task_index(self, task_id: str) -> int:
        return self._task_positions[task_id]


def judge_labels(data: RunData) -> dict[str, list[Judgment]]:
    """The current judgments of the run's chosen outcomes, grouped by judge label.

    An outcome's judgments are those made on its own inputs (:class:`Outcome`). Current: per
    label, artifact, inputs and repeat the latest judgment. An earlier one with the same judge
    and repeat was made under another rubric, and must not be averaged in as if it were a
    further repeat.
    """
    own = {id(j): j for o in data.outcomes.values() for j in o.judgments}.values()
    keys: dict[str, set[str]] = defaultdict(set)
    for j in own:
        keys[j.judge].add(j.judge_key)
    latest: dict[tuple[str, str, str, int], Judgment] = {}
    for j in own:
        slot = (judge_label(j, keys), j.artifact_sha256, j.inputs_sha256, j.repeat)
        held = latest.get(slot)
        if held is None or j.created_at > held.created_at:
            latest[slot] = j
    grouped: dict[str, list[Judgment]] = defaultdict(list)
    for (label, *_), j in sorted(latest.items(), key=lambda item: item[0]):
        grouped[label].append(j)
    return dict(sorted(grouped.items()))


def _axes(judgments: list[Judgment]) -> tuple[tuple[str, ...], NDArray[np.float64]]:
    order: dict[str, float] = {}
    for j in judgments:
        if j.status != JudgmentStatus.OK:
            continue
        for s in j.scores:
            order[s.axis] = max(order.get(s.axis, 0.0), s.max_score)
    return tuple(order), np.array(list(order.values()), dtype=np.float64)


def judge_scores(data: RunData, judge: str, judgments: list[Judgment], *,
                 count_failures: bool = False) -> JudgeScores:
    """Build one judge's arrays over the run's configurations and tasks; infrastructure
    failures score 0 with ``count_failures``, else they are left out."""
    axes, max_points = _axes(judgments)
    configs, tasks = tuple(data.config_order), tuple(data.task_order)
    label_ids = {id(j) for j in judgments}
    by_inputs: dict[tuple[str, str], set[int]] = defaultdict(set)
    for j in judgments:
        by_inputs[(j.artifact_sha256, j.inputs_sha256)].add(j.repeat)
    width = len(axes) + 1
    n_rep = max(map(len, by_inputs.values()), default=1)
    mean = np.full((len(configs), len(tasks), width), np.nan)
    repeats = np.full((len(configs), len(tasks), max(n_rep, 1)), np.nan)
    gated = np.zeros((len(configs), len(tasks)), dtype=bool)
    failed = np.zeros((len(configs), len(tasks)), dtype=np.int64)
    infrastructure = np.zeros((len(configs), len(tasks)), dtype=bool)
    t_index = {t: i for i, t in enumerate(tasks)}
    for c, config_id in enumerate(configs):
        for task_id in tasks:
            outcome = data.outcomes.get((task_id, config_id))
            if outcome is None:
                continue
            t = t_index[task_id]
            if outcome.infrastructure and not count_failures:
                infrastructure[c, t] = True
                continue
            if outcome.gated:
                gated[c, t] = True
                mean[c, t] = 0.0
                continue
            found = [j for j in outcome.judgments if id(j) in label_ids]
            ok = sorted((j for j in found if j.status == JudgmentStatus.OK), key=lambda j: j.repeat)
            failed[c, t] = len(found) - len(ok)
            if not ok:
                continue
            rows = np.full((len(ok), width), np.nan)
            for r, j in enumerate(ok):
                points = {s.axis: s.score for s in j.scores}
                rows[r, :-1] = [points.get(a, np.nan) for a in axes]
                rows[r, -1] = j.total if j.total is not None else np.nansum(rows[r, :-1])
            mean[c, t] = rows.mean(axis=0)
            repeats[c, t, : len(ok)] = rows[:, -1]
    proxy = any(j.proxy for j in judgments)
    deterministic = bool(judgments) and all(j.deterministic for j in judgments)
    sight = next((j.sight for j in judgments if j.sight), None)
    inexact = {s.axis: s.reference for j in judgments if j.status == JudgmentStatus.OK
               for s in j.scores if s.reference}
    return JudgeScores(judge, configs, tasks, axes, max_points, mean, repeats, gated, failed, proxy,
                       deterministic, sight, inexact, infrastructure)
