"""Tables per judging run: each configuration's mean and each paired effect under every judging
run on its own, beside the mean of the runs (ReFigBench's Tables 18 and 20).

Judging run N is repeat N-1 of the main judge (:attr:`Context.run_scores`); a run's cell for a
task is that repeat's successful judgment, so a task whose repeat failed is left out of that
run's mean, and the table says for how many tasks.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

import numpy as np
from numpy.typing import NDArray

from refig_toolkit_analysis.analysis.context import NO_JUDGMENTS, Context
from refig_toolkit_analysis.analysis.effects import PAIR_COLUMNS, EffectPair, effect_pairs, paired
from refig_toolkit_analysis.analysis.scores import JudgeScores
from refig_toolkit_analysis.analysis.tables import Cell, Column, Estimate, Table


def _why_not(ctx: Context) -> tuple[str | None, str | None]:
    """(not applicable, too little data) for the per-run tables, both None when they apply."""
    if ctx.scores is None:
        return None, NO_JUDGMENTS
    if ctx.data.judge_run is not None:
        return (f"the tables hold judging run {ctx.data.judge_run} alone (--judge-run); "
                "leave it out to see every run"), None
    if not ctx.run_scores:
        return f"{ctx.primary} judged this run once (`refig evaluate RUN --repeats 3`)", None
    return None, None


def _scored(scores: JudgeScores, c: int) -> NDArray[np.bool_]:
    """Tasks a configuration has every axis and the total for (the means table's rule)."""
    return np.asarray(np.isfinite(scores.mean[c]).all(axis=1))


def _missing_text(missing: dict[int, int]) -> str:
    """``run 2: 3 tasks`` for each run that lacks some tasks the mean of runs has, or ``none``."""
    parts = [f"run {r}: {n} task{'s' * (n != 1)}" for r, n in missing.items() if n]
    return ", ".join(parts) or "none"


def _run_columns(ctx: Context, digits: int) -> list[Column]:
    """One column per judging run, the mean of runs, their range and the tasks runs lack."""
    return [*(Column(f"run_{r}", f"run {r}", "estimate", digits) for r in ctx.run_scores),
            Column("pooled", "mean of runs", "estimate", digits),
            Column("range", "range (max − min)", "float", 2),
            Column("missing", "tasks missing a run")]


def _fill_runs(row: dict[str, Cell], ctx: Context,
               per_run: Callable[[JudgeScores], tuple[Estimate | None, int]]) -> None:
    """Each judging run's estimate in ``row`` (``per_run`` gives it, None when the run scored
    none of the tasks, and how many of the pooled tasks the run lacks), their range and the
    runs that lack tasks."""
    values, missing = [], {}
    for r, scores in ctx.run_scores.items():
        estimate, missing[r] = per_run(scores)
        if estimate is not None:
            row[f"run_{r}"] = estimate
            values.append(estimate.value)
    finite = [v for v in values if math.isfinite(v)]
    row["range"] = float(np.ptp(finite)) if finite else None
    row["missing"] = _missing_text(missing)


def run_means(ctx: Context) -> Iterator[Table]:
    """Each configuration's mean total per judging run, the mean of runs and their range."""
    columns = [
        Column("config", "configuration"),
        *_run_columns(ctx, 1),
    ]
    table = Table(
        "run_means",
        f"Configuration means per judging run (judge {ctx.primary})",
        columns,
        description="Mean total over tasks under each judging run alone (run N: repeat N-1, "
        "the run's successful judgment per task; gate failures 0), beside the mean over tasks "
        "of each task's mean over runs; range: highest minus lowest run mean.",
    )
    table.not_applicable, table.insufficient = _why_not(ctx)
    if table.not_applicable or table.insufficient:
        yield table
        return
    pooled = ctx.scores
    assert pooled is not None
    for c, config_id in enumerate(pooled.configs):
        ok = _scored(pooled, c)
        row: dict[str, Cell] = {"config": config_id}
        if ok.any():
            row["pooled"] = ctx.mean_interval(pooled.total[c, ok], _tasks(pooled, ok))

        def in_run(scores: JudgeScores, c: int = c, ok: NDArray[np.bool_] = ok
                   ) -> tuple[Estimate | None, int]:
            mine = _scored(scores, c)
            estimate = (ctx.mean_interval(scores.total[c, mine], _tasks(scores, mine))
                        if mine.any() else None)
            return estimate, int((ok & ~mine).sum())

        _fill_runs(row, ctx, in_run)
        table.rows.append(row)
    if any(r["missing"] != "none" for r in table.rows):
        table.notes.append("a run's mean leaves out the tasks whose judgment in that run failed; "
                           "the mean of runs keeps them (their other runs' judgments)")
    yield table


def _tasks(scores: JudgeScores, keep: NDArray[np.bool_]) -> list[str]:
    return [t for t, k in zip(scores.tasks, keep, strict=True) if k]


def run_effects(ctx: Context) -> Iterator[Table]:
    """Each paired effect on the total per judging run, beside the mean of runs."""
    columns = [
        *PAIR_COLUMNS,
        *_run_columns(ctx, 2),
    ]
    table = Table(
        "run_effects",
        f"Paired effects per judging run (judge {ctx.primary})",
        columns,
        description="Δ total, treatment minus baseline over the tasks both scored, under each "
        "judging run alone and under the mean of runs; intervals resample the same tasks on "
        "both sides.",
    )
    table.not_applicable, table.insufficient = _why_not(ctx)
    if table.not_applicable or table.insufficient:
        yield table
        return
    pooled = ctx.scores
    assert pooled is not None
    pairs = effect_pairs(ctx.data.configs, pooled.configs)
    for pair in pairs:
        estimate, tasks = paired(ctx, pooled, pair, -1)
        row: dict[str, Cell] = {**pair.cells(), "n": len(tasks), "pooled": estimate}

        def in_run(scores: JudgeScores, pair: EffectPair = pair, tasks: list[str] = tasks
                   ) -> tuple[Estimate | None, int]:
            found, mine = paired(ctx, scores, pair, -1)
            return (found if mine else None), len(set(tasks) - set(mine))

        _fill_runs(row, ctx, in_run)
        table.rows.append(row)
    if not pairs:
        table.insufficient = "no two configurations differ in exactly one of workflow or harness"
    elif any(r["missing"] != "none" for r in table.rows):
        table.notes.append("a run's effect leaves out the tasks where either side's judgment "
                           "in that run failed")
    yield table

