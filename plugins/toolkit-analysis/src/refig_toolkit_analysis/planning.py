"""Plan before you spend: a pilot run's variances and costs, turned into a study's size.

:func:`read_pilot` estimates, from one judge's scores on a pilot run, the judge's noise (pooled
over artifacts judged twice or more), the variance of each pair's per-task differences with that
noise taken out, and the recorded costs of an agent attempt and of a judgment; :func:`plan` turns
them into the tasks a paired comparison needs at each number of judge repeats, and what the runs
and the judging would cost (formulas: :mod:`.stats.power`, ``docs/statistics.md``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from refig.errors import UsageError
from refig.store import RunStore

from refig_toolkit_analysis.analysis.context import MIN_PAIRED_TASKS, Context, Options
from refig_toolkit_analysis.analysis.effects import effect_pairs
from refig_toolkit_analysis.analysis.rundata import RunData
from refig_toolkit_analysis.analysis.scores import JudgeScores
from refig_toolkit_analysis.stats import power as formulas


@dataclass(frozen=True)
class PairVariance:
    """One pair's per-task differences in the pilot, treatment minus baseline."""

    treatment: str
    baseline: str
    tasks: int
    #: Sample variance (ddof 1) of the differences as the pilot measured them.
    observed: float
    #: The judge noise in them: the mean over tasks of ``s_judge^2 (g_a / k_a + g_b / k_b)``.
    judge_part: float
    #: The share of the pair's cells a judge scored (not gate failures).
    judged_share: float
    mean: float

    @property
    def task_variance(self) -> float:
        """``s_task^2 = max(observed - judge part, 0)``."""
        return max(self.observed - self.judge_part, 0.0)

    def variance(self, judge_variance: float, repeats: int) -> float:
        """The variance of a difference with ``repeats`` judge repeats per artifact."""
        return formulas.difference_variance(self.task_variance, judge_variance,
                                            self.judged_share, repeats)


@dataclass(frozen=True)
class Pilot:
    """What a pilot run says about a study's noise and cost."""

    run: Path
    judge: str
    tasks: int
    #: Pooled variance of one repeat's total about its artifact's mean (None: nothing judged
    #: twice), its degrees of freedom and the artifacts it pools.
    judge_variance: float | None
    judge_df: int
    judged_twice: int
    deterministic: bool
    repeats: int
    pairs: tuple[PairVariance, ...]
    #: Mean recorded cost of a task x configuration's attempts (every try), and how many cells.
    attempt_cost: float | None
    attempt_cells: int
    #: Mean recorded cost of one of the judge's judgments, and how many had one.
    judgment_cost: float | None
    judgments_costed: int
    clustered: bool


def _judge_noise(scores: JudgeScores) -> tuple[float | None, int, int]:
    """Pooled within-artifact variance of repeat totals: ``sum (y - mean)^2 / sum (k - 1)`` over
    judged cells with ``k >= 2`` successful repeats."""
    block = scores.repeats.reshape(-1, scores.repeats.shape[-1])
    counts = np.isfinite(block).sum(axis=1)
    multi = block[counts >= 2]
    df = int((counts[counts >= 2] - 1).sum())
    if df == 0:
        return None, 0, 0
    squares = np.nansum((multi - np.nanmean(multi, axis=1, keepdims=True)) ** 2)
    return float(squares / df), df, int(multi.shape[0])


def _pair(scores: JudgeScores, treatment: str, baseline: str,
          judge_variance: float) -> PairVariance | None:
    a, b = scores.config_index(treatment), scores.config_index(baseline)
    both = np.isfinite(scores.total[a]) & np.isfinite(scores.total[b])
    if both.sum() < MIN_PAIRED_TASKS:
        return None
    diffs = scores.total[a, both] - scores.total[b, both]

    def noise(c: int) -> tuple[np.ndarray, np.ndarray]:
        judged = ~scores.gated[c, both]
        k = np.isfinite(scores.repeats[c, both]).sum(axis=1)
        return judged, np.where(judged, 1.0 / np.maximum(k, 1), 0.0)

    (ja, wa), (jb, wb) = noise(a), noise(b)
    return PairVariance(treatment, baseline, int(both.sum()), float(np.var(diffs, ddof=1)),
                        float(judge_variance * (wa + wb).mean()),
                        float((ja.mean() + jb.mean()) / 2), float(diffs.mean()))


def _costs(data: RunData, configs: Sequence[str], judge: str) -> tuple[float | None, int,
                                                                       float | None, int]:
    spent: dict[tuple[str, str], float] = {}
    for attempt in data.attempts:
        if attempt.config_id in configs and attempt.cost_usd is not None:
            cell = (attempt.task_id, attempt.config_id)
            spent[cell] = spent.get(cell, 0.0) + attempt.cost_usd
    judged = [j.cost_usd for found in data.judgments.values() for j in found
              if j.judge == judge.split("~", 1)[0] and j.cost_usd is not None]
    return (float(np.mean(list(spent.values()))) if spent else None, len(spent),
            float(np.mean(judged)) if judged else None, len(judged))


def read_pilot(run: Path, *, judge: str | None = None,
               pair: tuple[str, str] | None = None) -> Pilot:
    """The pilot's noise and costs under ``judge`` (default: the report's main judge).

    The pairs are ``pair`` (treatment, baseline) when given, else every pair of configurations
    that differ in one factor (the report's paired effects), else every pair; each needs
    :data:`MIN_PAIRED_TASKS` tasks both scored.
    """
    ctx = Context(RunData.load(RunStore.open(run)), Options(judge=judge))
    scores = ctx.scores
    if scores is None:
        raise UsageError(f"{run} has no judgments to plan from",
                         fix="judge the pilot first: `refig evaluate RUN --judge NAME`")
    judge_variance, df, twice = _judge_noise(scores)
    if scores.deterministic:
        judge_variance, df, twice = 0.0, 0, 0
    if pair is not None:
        missing = [c for c in pair if c not in scores.configs]
        if missing:
            raise UsageError(f"--pair: {', '.join(missing)} not in {run}",
                             fix=f"choose among: {', '.join(scores.configs)}")
        candidates = [pair]
    else:
        candidates = [(p.treatment, p.baseline)
                      for p in effect_pairs(ctx.data.configs, scores.configs)]
        if not candidates:
            candidates = [(a, b) for i, b in enumerate(scores.configs)
                          for a in scores.configs[i + 1:]]
    found = [_pair(scores, a, b, judge_variance or 0.0) for a, b in candidates if a != b]
    pairs = tuple(p for p in found if p is not None)
    if not pairs:
        raise UsageError(
            f"{run}: no two configurations scored by {ctx.primary} on {MIN_PAIRED_TASKS} common "
            "tasks",
            fix="run the pilot with two configurations on at least "
            f"{MIN_PAIRED_TASKS} tasks and judge it")
    configs = sorted({c for p in pairs for c in (p.treatment, p.baseline)})
    counts = np.isfinite(scores.repeats).sum(axis=-1)[~scores.gated]
    repeats = int(np.bincount(counts[counts > 0]).argmax()) if (counts > 0).any() else 1
    return Pilot(run, str(ctx.primary), len(scores.tasks), judge_variance, df, twice,
                 scores.deterministic, repeats, pairs, *_costs(ctx.data, configs, scores.judge),
                 ctx.clustered)


@dataclass(frozen=True)
class PlanRow:
    """The study with ``repeats`` judge repeats per artifact."""

    repeats: int
    sd: float
    tasks: int
    normal_tasks: float
    attempt_cost: float | None
    judging_cost: float | None

    @property
    def total_cost(self) -> float | None:
        if self.attempt_cost is None or self.judging_cost is None:
            return None
        return self.attempt_cost + self.judging_cost


@dataclass(frozen=True)
class Plan:
    """Tasks and costs per number of judge repeats, and the one recommended."""

    effect: float
    power: float
    alpha: float
    configs: int
    pair: PairVariance
    rows: tuple[PlanRow, ...]
    recommended: PlanRow
    #: Why the recommendation is the one it is.
    reason: str


def plan(pilot: Pilot, *, effect: float, power: float = 0.8, alpha: float = 0.05,
         configs: int = 2, max_repeats: int = 5, repeats: int | None = None,
         attempt_cost: float | None = None, judgment_cost: float | None = None) -> Plan:
    """Tasks for a paired difference of ``effect`` points at ``power`` (two-sided paired t test at
    ``alpha``), for each number of judge repeats from 1 to ``max_repeats`` (or ``repeats`` only),
    sized for the pilot's noisiest pair; costs from the pilot unless given.

    A study of ``n`` tasks runs ``configs x n`` agent attempts and ``configs x n x f x k``
    judgments (``f`` the pilot's judged share). The recommendation is the cheapest row when both
    costs are known (ties: fewer tasks), else the row nearest the pilot's own repeats. A pilot
    judged once plans for one repeat only (its judge noise is inside its differences); a
    deterministic judge for one.
    """
    if configs < 2:
        raise ValueError("a paired comparison needs two configurations")
    if pilot.judge_variance is None:
        choices, reason = [pilot.repeats], (
            "the pilot judged each artifact once: its judge noise is not separable from the "
            "tasks', so the plan keeps its one repeat")
    elif pilot.deterministic:
        choices, reason = [1], "a deterministic judge: repeats would agree"
    elif repeats is not None:
        choices, reason = [repeats], "the repeats asked for"
    else:
        choices, reason = list(range(1, max_repeats + 1)), "the cheapest"
    if any(k < 1 for k in choices):
        raise ValueError("judge repeats must be at least 1")
    noise = pilot.judge_variance or 0.0
    pair = max(pilot.pairs, key=lambda p: (p.variance(noise, choices[0]), p.tasks))
    c_attempt = attempt_cost if attempt_cost is not None else pilot.attempt_cost
    c_judgment = judgment_cost if judgment_cost is not None else pilot.judgment_cost
    rows = []
    for k in choices:
        sd = math.sqrt(max(p.variance(noise, k) for p in pilot.pairs))
        n = formulas.paired_t_tasks(effect, sd, power, alpha)
        rows.append(PlanRow(
            k, sd, n, formulas.normal_tasks(effect, sd, power, alpha),
            None if c_attempt is None else configs * n * c_attempt,
            None if c_judgment is None else configs * n * pair.judged_share * k * c_judgment))
    if all(r.total_cost is not None for r in rows):
        best = min(rows, key=lambda r: (r.total_cost or 0.0, r.tasks))
    else:
        best = min(rows, key=lambda r: abs(r.repeats - pilot.repeats))
        if len(rows) > 1:
            reason = "costs not recorded: the pilot's repeats"
    return Plan(effect, power, alpha, configs, pair, tuple(rows), best, reason)
