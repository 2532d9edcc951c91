"""How well judge means track human Elo across configurations: Pearson's r per judge, and
under rubric axis weights swept one axis at a time."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from refig_toolkit_analysis import stats
from refig_toolkit_analysis.analysis.context import (
    MIN_TASKS_FOR_INTERVAL,
    NO_JUDGMENTS,
    Context,
    correlation_estimate,
)
from refig_toolkit_analysis.analysis.scores import JudgeScores
from refig_toolkit_analysis.analysis.tables import Column, Table


def _ratings(ctx: Context) -> dict[str, float] | str:
    """Each configuration's Elo rating, or why there is none."""
    result = ctx.elo
    if result is None:
        return "too few human comparisons for Elo (see the Elo table)"
    if not result.exists:
        return f"Elo is not identifiable: {result.reason}"
    return {row["item"]: float(row["rating"]) for row in result.rows()}


def judge_means(scores: JudgeScores) -> dict[str, float]:
    """A judge's mean total per configuration over its scored tasks (as in the Elo table)."""
    return {config: float(np.nanmean(scores.total[c]))
            for c, config in enumerate(scores.configs) if np.isfinite(scores.total[c]).any()}


def judge_elo(ctx: Context) -> Iterator[Table]:
    """Pearson's r (and Spearman's rho) of each judge's configuration means against Elo."""
    columns = [
        Column("judge", "judge"),
        Column("n", "configurations", "int"),
        Column("pearson", "Pearson r", "estimate", 3),
        Column("spearman", "Spearman ρ", "float", 3),
    ]
    table = Table(
        "judge_elo",
        "Judge means against human Elo",
        columns,
        description="Across configurations with an Elo rating: each judge's mean total (over "
        f"its scored tasks) against the Elo rating; {100 * ctx.options.level:g}% percentile "
        f"bootstrap interval over configurations from {MIN_TASKS_FOR_INTERVAL} on.",
    )
    ratings = _ratings(ctx)
    if isinstance(ratings, str):
        table.insufficient = ratings
        yield table
        return
    for label, scores in ctx.judges.items():
        means = judge_means(scores)
        both = [c for c in means if c in ratings]
        x = np.array([means[c] for c in both])
        y = np.array([ratings[c] for c in both])
        r = stats.pearson_ci(x, y, resamples=ctx.options.resamples, level=ctx.options.level,
                             seed=ctx.options.seed)
        rho = stats.rank_agreement(x, y).spearman if len(both) >= 3 else None
        table.rows.append({"judge": label, "n": len(both), "pearson": correlation_estimate(r),
                           "spearman": rho})
    if not any(row["pearson"] is not None for row in table.rows):
        table.insufficient = "no judge scored three configurations that have Elo"
    yield table


def elo_weights(ctx: Context) -> Iterator[Table]:
    """Pearson's r of the main judge's reweighted configuration means against Elo, as each
    rubric axis' weight sweeps 0 to half the total (the other axes rescaled)."""
    scores = ctx.scores
    table = Table(
        "elo_weights",
        f"Rubric weights against human Elo (judge {ctx.primary})",
        [],
        description="Pearson r across configurations of the mean reweighted score (tasks "
        "scored on every axis) against Elo, when one axis (a column) gets the weight of the row "
        "and the others are rescaled to keep the total.",
    )
    ratings = _ratings(ctx)
    if isinstance(ratings, str) or scores is None:
        table.insufficient = NO_JUDGMENTS if scores is None else str(ratings)
        yield table
        return
    total = scores.full_marks
    weights = np.array(stats.ELO_SWEEP_SHARES) * total
    elo = np.array([ratings.get(c, np.nan) for c in scores.configs])
    found = stats.axis_weight_correlations(scores.axis_points, scores.max_points, elo, weights)
    table.columns = [Column("weight", f"axis weight (of {total:g})", "float", 1),
                     *(Column(a, f"r, {a} weighted", "float", 3) for a in scores.axes)]
    table.rows = [{"weight": float(w), **{a: float(found[k, e])
                                          for e, a in enumerate(scores.axes)}}
                  for k, w in enumerate(weights)]
    if not np.isfinite(found).any():
        table.insufficient = "needs three configurations with Elo and a judge mean that differ"
        yield table
        return
    default = stats.axis_weight_correlations(
        scores.axis_points, scores.max_points, elo, scores.max_points[:1])[0, 0]
    k, e = np.unravel_index(int(np.nanargmax(found)), found.shape)
    table.notes.append(
        f"at the rubric's own weights r = {default:.3f}; highest r = {found[k, e]:.3f} with "
        f"{scores.axes[e]} weighted {weights[k]:g}")
    yield table

