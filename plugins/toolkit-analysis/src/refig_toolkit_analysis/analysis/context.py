"""What a section builder sees: the run's data, every judge's score arrays and the options."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import NDArray
from refig.errors import UsageError
from refig.models import Judgment

from refig_toolkit_analysis import stats
from refig_toolkit_analysis.analysis.rundata import RunData
from refig_toolkit_analysis.analysis.scores import JudgeScores, judge_labels, judge_scores
from refig_toolkit_analysis.analysis.tables import Estimate, finite

#: Below these counts a table says it has too little data instead of printing noise.
MIN_TASKS_FOR_INTERVAL = 5
MIN_PAIRED_TASKS = 5
MIN_ICC_TARGETS = 5
MIN_RANK_CONFIGS = 3
MIN_RANK_ARTIFACTS = 5
MIN_COMPARISONS = 10
MIN_DECISIVE = 10
#: Above this share of dropped Bradley-Terry resamples the Elo intervals are flagged as too narrow.
MAX_DROPPED_SHARE = 0.05

EDITABILITY_HINTS = ("edit",)
SEMANTIC_HINTS = ("semantic", "structure")

#: What a table that needs a judge says when the run has none.
NO_JUDGMENTS = (
    "no successful judgments in this run; score it with `refig evaluate RUN --judge NAME`"
)


@dataclass(frozen=True)
class Options:
    """Analysis settings; the defaults are the ones the paper's tables use."""

    judge: str | None = None
    resamples: int = stats.DEFAULT_RESAMPLES
    elo_resamples: int = 1000
    level: float = stats.DEFAULT_LEVEL
    seed: int = 0
    buckets: tuple[float, ...] = stats.DEFAULT_MARGIN_BUCKETS
    #: Decisive votes on pairs the judge scored level: left out (protocol) or mismatches.
    zero_margin: stats.ZeroMargin = "exclude"
    #: Score infrastructure failures (provider errors, missing keys...) 0 instead of leaving
    #: them out of every mean (``refig_toolkit_analysis.analysis.failures``).
    count_failures: bool = False
    #: One judging run N (repeat N-1) for every table, as ReFigBench's Table 2 (N = 1); None
    #: averages each artifact's successful repeats.
    judge_run: int | None = None


@dataclass
class Context:
    """The run, each judge's scores, the primary judge and the options, for section builders."""

    data: RunData
    options: Options = field(default_factory=Options)

    @cached_property
    def _labelled(self) -> dict[str, list[Judgment]]:
        return judge_labels(self.data)

    @cached_property
    def judges(self) -> dict[str, JudgeScores]:
        """Scores per judge label, every judge that judged one of the run's artifacts."""
        return {
            label: judge_scores(self.data, label, found,
                                count_failures=self.options.count_failures)
            for label, found in self._labelled.items()
        }

    @cached_property
    def run_scores(self) -> dict[int, JudgeScores]:
        """The primary judge's scores per judging run N (repeat N-1), each built from that
        repeat's judgments alone, keyed by the judgment's own repeat index (a failed repeat
        leaves its cell unscored in that run, never shifts a later one into its place).
        Empty unless the run holds several judging runs and no ``--judge-run`` chose one."""
        if self.primary is None or self.data.judge_run is not None:
            return {}
        found = self._labelled[self.primary]
        repeats = sorted({j.repeat for j in found})
        if len(repeats) < 2:
            return {}
        return {
            r + 1: judge_scores(self.data, self.primary, [j for j in found if j.repeat == r],
                                count_failures=self.options.count_failures)
            for r in repeats
        }

    @cached_property
    def primary(self) -> str | None:
        """The judge the main tables use: ``--judge``, else the one with the most scored cells."""
        if self.options.judge is not None:
            if self.options.judge not in self.judges:
                known = ", ".join(self.judges) or "none (the run has no judgments)"
                raise UsageError(
                    f"judge {self.options.judge!r} has no judgments in {self.data.root}",
                    fix=f"choose one of: {known}",
                )
            return self.options.judge
        if not self.judges:
            return None
        return min(self.judges, key=lambda j: (-int(np.isfinite(self.judges[j].total).sum()), j))

    @property
    def scores(self) -> JudgeScores | None:
        """The primary judge's scores."""
        return None if self.primary is None else self.judges[self.primary]

    @cached_property
    def clustered(self) -> bool:
        """True when some source figure holds several tasks (then bootstraps resample clusters)."""
        clusters = [self.data.cluster(t) for t in self.data.task_order]
        return len(set(clusters)) < len(clusters)

    def mean_interval(self, values: NDArray[np.float64], tasks: Sequence[str]) -> Estimate:
        """Mean over tasks with a (cluster) bootstrap interval when there are enough tasks."""
        if values.size == 0:
            return Estimate(math.nan)
        return self.intervals(values[:, None], tasks)[0]

    def intervals(self, matrix: NDArray[np.float64], tasks: Sequence[str]) -> list[Estimate]:
        """Per column of a (tasks, k) matrix: mean and interval, the columns sharing resamples."""
        if matrix.shape[0] < MIN_TASKS_FOR_INTERVAL:
            return [Estimate(float(v)) for v in matrix.mean(axis=0)]
        kw: dict[str, Any] = dict(
            resamples=self.options.resamples, level=self.options.level, seed=self.options.seed
        )
        if self.clustered:
            found = stats.cluster_bootstrap_ci(matrix, [self.data.cluster(t) for t in tasks], **kw)
        else:
            found = stats.bootstrap_ci(matrix, **kw)
        assert isinstance(found, list)
        return [Estimate(i.estimate, i.low, i.high) for i in found]

    @cached_property
    def elo(self) -> stats.EloResult | None:
        """Bradley-Terry Elo of the human preferences (None when there are too few)."""
        comparisons = preference_comparisons(self.data)
        items = sorted({c.left for c in comparisons} | {c.right for c in comparisons})
        if len(comparisons) < MIN_COMPARISONS or len(items) < 2:
            return None
        return stats.bradley_terry_elo(
            comparisons,
            resamples=self.options.elo_resamples,
            level=self.options.level,
            seed=self.options.seed,
        )


def correlation_estimate(r: stats.Correlation) -> Estimate | None:
    """r, with its interval from :data:`MIN_TASKS_FOR_INTERVAL` clusters on (None when
    undefined)."""
    value = finite(r.r)
    if value is None:
        return None
    if r.clusters < MIN_TASKS_FOR_INTERVAL:
        return Estimate(value)
    return Estimate(value, finite(r.low), finite(r.high))


CHOICE_SCORE = {"A": 1.0, "B": 0.0, "tie": 0.5}


def preference_comparisons(data: RunData) -> list[stats.Comparison]:
    """Human votes as comparisons: left is A, a tie is half a win, clustered by source figure."""
    return [
        stats.Comparison(p.left, p.right, CHOICE_SCORE[p.choice], data.cluster(p.task_id))
        for p in data.preferences
    ]
