"""The human preferences: Bradley-Terry Elo standings, and how often judges agree with them."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from refig_toolkit_analysis import stats
from refig_toolkit_analysis.analysis.context import (
    MAX_DROPPED_SHARE,
    MIN_COMPARISONS,
    MIN_DECISIVE,
    Context,
)
from refig_toolkit_analysis.analysis.elo_fit import judge_means
from refig_toolkit_analysis.analysis.scores import JudgeScores
from refig_toolkit_analysis.analysis.tables import Cell, Column, Estimate, Table, finite


def elo(ctx: Context) -> Iterator[Table]:
    """Bradley-Terry Elo standings from human preferences."""
    yield elo_table(ctx)


def elo_table(ctx: Context) -> Table:
    """The Elo standings table (exposed for ``refig annotate`` and the figures)."""
    columns = [
        Column("rank", "#", "int"),
        Column("config", "configuration"),
        Column("elo", "Elo", "estimate", 0, best="max"),
        Column("games", "comparisons", "int"),
        Column("wins", "wins (ties ½)", "float", 1),
        Column("ties", "ties", "int"),
    ]
    scores = ctx.scores
    if scores is not None:
        columns.append(Column("judge_mean", f"mean total ({ctx.primary})", "float", 1))
    table = Table(
        "elo",
        "Human preference Elo",
        columns,
        description="Bradley-Terry maximum likelihood, ties as half a win to each side, on the "
        f"Elo scale (mean 1000); {100 * ctx.options.level:g}% intervals from "
        f"{ctx.options.elo_resamples:,} cluster-bootstrap resamples over source figures.",
    )
    n = len(ctx.data.preferences)
    result = ctx.elo
    if result is None:
        table.insufficient = (
            f"{n} human comparisons; Elo needs at least {MIN_COMPARISONS} "
            "among two or more configurations (`refig annotate RUN`)"
        )
        return table
    if not result.exists:
        table.insufficient = f"Elo is not identifiable: {result.reason}"
        return table
    for rank, row in enumerate(result.rows(), 1):
        entry: dict[str, Cell] = {
            "rank": rank,
            "config": row["item"],
            "elo": Estimate(row["rating"], finite(row["low"]), finite(row["high"])),
            "games": row["games"],
            "wins": row["wins"],
            "ties": row["ties"],
        }
        if scores is not None:
            entry["judge_mean"] = judge_means(scores).get(row["item"])
        table.rows.append(entry)
    if result.dropped:
        note = (
            f"{result.dropped} of {result.resamples} resamples had no maximum-likelihood "
            "estimate and were dropped"
        )
        if result.dropped / max(result.resamples, 1) > MAX_DROPPED_SHARE:
            note += "; the intervals are too narrow (more comparisons are needed)"
        table.notes.append(note)
    return table


def direction(ctx: Context) -> Iterator[Table]:
    """Judge-versus-human direction agreement by absolute margin bucket."""
    yield direction_table(ctx)


def _bucket_label(low: float, high: float) -> str:
    label = f"[{low:g}, {high:g})" if math.isfinite(high) else f"≥ {low:g}"
    return f"{label} tie" if low == 0 and high <= stats.TIE_MARGIN else label


def direction_table(ctx: Context) -> Table:
    """The direction-agreement table (exposed for ``refig annotate``)."""
    columns = [
        Column("judge", "judge"),
        Column("bucket", "|margin|"),
        Column("decisive", "decisive votes", "int"),
        Column("matches", "judge agrees", "int"),
        Column("share", "agreement", "pct", 1),
    ]
    table = Table(
        "direction",
        "Judge vs human direction agreement",
        columns,
        description="Share of decisive human preferences (ties left out) whose direction the "
        "judge's score margin matches, by absolute margin; Wilson intervals; margins below "
        f"{stats.TIE_MARGIN:g} points are the judge's ties (ReFigBench protocol). "
        + ("Decisive votes on pairs the judge scored level are left out and counted."
           if ctx.options.zero_margin == "exclude"
           else "Decisive votes on pairs the judge scored level count as disagreements "
           "(--zero-margin disagree, the older convention)."),
    )
    best = 0
    for label, scores in ctx.judges.items():
        margins, prefs = judge_margins(ctx, scores)
        if not prefs:
            continue
        result = stats.direction_agreement(
            margins, prefs, ctx.options.buckets, level=ctx.options.level,
            zero_margin=ctx.options.zero_margin,
        )
        best = max(best, result.overall.decisive)
        if result.zero_margins:
            what = ("left out" if result.zero_margin == "exclude"
                    else "counted as disagreements")
            table.notes.append(f"{label}: {result.zero_margins} decisive votes on pairs it "
                               f"scored level (margin 0) {what}")
        for bucket in (*result.buckets, result.overall):
            is_all = bucket is result.overall
            table.rows.append(
                {
                    "judge": label,
                    "bucket": "all" if is_all else _bucket_label(bucket.low, bucket.high),
                    "decisive": bucket.decisive,
                    "matches": bucket.matches,
                    "share": Estimate(bucket.share, finite(bucket.ci_low), finite(bucket.ci_high))
                    if bucket.decisive
                    else None,
                }
            )
    if best < MIN_DECISIVE:
        table.insufficient = (
            f"{best} decisive human votes on judged artifacts; agreement needs "
            f"at least {MIN_DECISIVE}"
        )
    return table


def judge_margins(ctx: Context, scores: JudgeScores) -> tuple[list[float], list[str]]:
    """Per human vote where the judge scored both sides: (left minus right total, choice)."""
    margins: list[float] = []
    prefs: list[str] = []
    t_index = {t: i for i, t in enumerate(scores.tasks)}
    for p in ctx.data.preferences:
        if (
            p.task_id not in t_index
            or p.left not in scores.configs
            or p.right not in scores.configs
        ):
            continue
        t = t_index[p.task_id]
        left = scores.total[scores.config_index(p.left), t]
        right = scores.total[scores.config_index(p.right), t]
        if np.isfinite(left) and np.isfinite(right):
            margins.append(float(left - right))
            prefs.append(p.choice)
    return margins, prefs
