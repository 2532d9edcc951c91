"""The numbers of PPTArena's tables, from per-repeat IF and VQ scores (plain Python, no run).

A case is one (configuration, task). Its IF and VQ are the means over the judge's successful
repeats, and its IF% and VQ% are score / 5 x 100. As PPTArena's published app computes them, a
configuration's IF% and VQ% and its system score (the case score, the mean of IF% and VQ%) are
sums over its judged cases divided by the number of EXPECTED cases, a missing or failed case
counting 0 (infrastructure failures included), so an agent cannot gain by failing hard cases;
the IF and VQ means (0-5) and the judged case score (the app's ``mean_scored_pct``) average the
judged cases only. refig's own system score leaves
the infrastructure cases (the provider's or the set-up's failure, not the model's) out of the
expected cases, as every other mean of the report does.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

SCALE = 5.0


@dataclass(frozen=True)
class Scored:
    """One successful judgment's two axes."""

    repeat: int
    instruction: float
    visual: float


@dataclass
class Case:
    """One configuration's judgments of one task."""

    config: str
    task: str
    judged: list[Scored] = field(default_factory=list)
    failed: bool = False
    #: The attempt failed for the provider or the set-up (left out unless counted as failures).
    infrastructure: bool = False

    @property
    def ok(self) -> bool:
        return bool(self.judged)

    @property
    def instruction(self) -> float:
        return sum(s.instruction for s in self.judged) / len(self.judged)

    @property
    def visual(self) -> float:
        return sum(s.visual for s in self.judged) / len(self.judged)

    @property
    def case_score(self) -> float:
        """Mean of IF% and VQ%; 0 when the case was not judged."""
        if not self.ok:
            return 0.0
        return (self.instruction + self.visual) / 2 / SCALE * 100


@dataclass(frozen=True)
class Summary:
    """One row of the main table."""

    config: str
    expected: int
    judged: int
    instruction: float
    visual: float
    system: float
    oracle: bool
    #: IF% and VQ% over the expected cases, a missing or failed case 0 (PPTArena's app).
    if_pct: float = math.nan
    vq_pct: float = math.nan
    #: Infrastructure cases among the expected, and the system score without them.
    infrastructure: int = 0
    system_measured: float = math.nan

    @property
    def case(self) -> float:
        """Mean case score over judged cases (the app's ``mean_scored_pct``)."""
        return (self.instruction + self.visual) / 2 / SCALE * 100


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def over_expected(judged: Sequence[float], expected: int) -> float:
    """Percent of the scale: judged 0-5 scores summed, divided by the expected cases (the
    missing count 0); NaN when nothing is expected."""
    return sum(judged) / SCALE * 100 / expected if expected else math.nan


def summarise(cases: Mapping[tuple[str, str], Case], configs: Sequence[str],
              tasks: Sequence[str], oracles: Iterable[str] = ()) -> list[Summary]:
    """One summary per configuration over ``tasks`` (the expected cases of the view)."""
    marked = set(oracles)
    rows = []
    for config in configs:
        mine = [cases.get((config, t)) or Case(config, t) for t in tasks]
        judged = [c for c in mine if c.ok]
        measured = [c for c in mine if not c.infrastructure]
        rows.append(Summary(
            config=config, expected=len(tasks), judged=len(judged),
            instruction=_mean([c.instruction for c in judged]),
            visual=_mean([c.visual for c in judged]),
            system=_mean([c.case_score for c in mine]),
            if_pct=over_expected([c.instruction for c in judged], len(tasks)),
            vq_pct=over_expected([c.visual for c in judged], len(tasks)),
            oracle=config in marked, infrastructure=len(mine) - len(measured),
            system_measured=_mean([c.case_score for c in measured])))
    return rows


def by_label(cases: Mapping[tuple[str, str], Case], configs: Sequence[str],
             labels: Mapping[str, Sequence[str]]) -> list[tuple[str, str, float, float, int]]:
    """``(config, label, IF mean, VQ mean, judged cases)`` for each label of the tasks (a
    multi-label task counts under each of its labels); the label's expected cases are
    ``tasks_by_label(labels)[label]``."""
    tasks_of = tasks_by_label(labels)
    rows = []
    for config in configs:
        for label in sorted(tasks_of):
            judged = [c for t in tasks_of[label] if (c := cases.get((config, t))) and c.ok]
            rows.append((config, label, _mean([c.instruction for c in judged]),
                         _mean([c.visual for c in judged]), len(judged)))
    return rows


def tasks_by_label(labels: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """Each label's tasks, in task order."""
    tasks_of: dict[str, list[str]] = {}
    for task, names in labels.items():
        for name in names:
            tasks_of.setdefault(name, []).append(task)
    return tasks_of


def majority_agreement(cases: Iterable[Case]) -> tuple[float, float, int]:
    """Share of cases (with two or more repeats) whose modal IF (and VQ) score is given by more
    than half of the repeats; PPTArena reports 78% (IF) and 95% (VQ) over 5 runs."""
    counted, hits_if, hits_vq = 0, 0, 0
    for case in cases:
        if len(case.judged) < 2:
            continue
        counted += 1
        n = len(case.judged)
        if Counter(s.instruction for s in case.judged).most_common(1)[0][1] * 2 > n:
            hits_if += 1
        if Counter(s.visual for s in case.judged).most_common(1)[0][1] * 2 > n:
            hits_vq += 1
    if not counted:
        return math.nan, math.nan, 0
    return hits_if / counted, hits_vq / counted, counted


def rank_agreement(one: Sequence[float], two: Sequence[float]) -> tuple[float, float]:
    """Spearman and Kendall correlation of two judges' system scores over configurations."""
    from scipy.stats import kendalltau, spearmanr

    if len(one) < 3:
        return math.nan, math.nan
    return float(spearmanr(one, two).statistic), float(kendalltau(one, two).statistic)
