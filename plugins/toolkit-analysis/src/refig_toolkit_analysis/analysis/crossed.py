"""Harness and model apart: the decomposition of crossed configurations, and per-task deltas of
the same model in another harness (``docs/statistics.md#harness-and-model-apart``)."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterator

import numpy as np
from refig.models import Configuration

from refig_toolkit_analysis import stats
from refig_toolkit_analysis.analysis.context import MIN_TASKS_FOR_INTERVAL, NO_JUDGMENTS, Context
from refig_toolkit_analysis.analysis.effects import effect_pairs
from refig_toolkit_analysis.analysis.scores import JudgeScores
from refig_toolkit_analysis.analysis.tables import Cell, Column, Estimate, Table

#: What the decomposition needs, said when a run does not have it.
NEEDS_GRID = ("no two harnesses were run with the same two models under one workflow (a crossed "
              "harness x model grid)")


def _stratum(config: Configuration) -> str:
    """The workflow and options a crossed grid holds fixed."""
    opts = ",".join(f"{k}={v}" for k, v in sorted(config.options.items()))
    return config.workflow + (f" [{opts}]" if opts else "")


def _estimate(interval: stats.Interval, tasks: int) -> Estimate:
    if tasks < MIN_TASKS_FOR_INTERVAL or not math.isfinite(interval.low):
        return Estimate(interval.estimate)
    return Estimate(interval.estimate, interval.low, interval.high)


def _grid_rows(ctx: Context, scores: JudgeScores, stratum: str,
               cells: dict[tuple[str, str], str]) -> tuple[list[dict[str, Cell]], list[str]]:
    """One stratum's decomposition rows, and its notes (cells left out, tasks dropped)."""
    grid = stats.largest_crossed_grid(cells)
    if grid is None:
        return [], []
    harnesses, models = grid
    notes = []
    left = sorted(cells[c] for c in cells if c[0] not in harnesses or c[1] not in models)
    if left:
        notes.append(f"{stratum}: outside the crossed grid, left out: {', '.join(left)}")
    rows_of = [[scores.config_index(cells[(h, m)]) for m in models] for h in harnesses]
    cube = np.stack([[scores.total[c] for c in row] for row in rows_of])  # (H, M, tasks)
    ok = np.isfinite(cube).all(axis=(0, 1))
    tasks = [t for t, keep in zip(scores.tasks, ok, strict=True) if keep]
    if len(tasks) < 1:
        return [], [f"{stratum}: no task scored by every configuration of the grid"]
    if not ok.all():
        notes.append(f"{stratum}: {len(tasks)} of {len(ok)} tasks scored by every cell")
    found = stats.decompose(
        np.moveaxis(cube[:, :, ok], -1, 0), [ctx.data.cluster(t) for t in tasks],
        harnesses, models, resamples=ctx.options.resamples, level=ctx.options.level,
        seed=ctx.options.seed,
    )
    n = found.tasks
    rows: list[dict[str, Cell]] = [{"stratum": stratum, "component": "grand mean", "level": "",
                                    "n": n, "effect": _estimate(found.grand, n)}]
    for name, levels, effects in (("harness", harnesses, found.harness),
                                  ("model", models, found.model)):
        rows.append({"stratum": stratum, "component": name, "level": "(share)", "n": n,
                     "share": _estimate(found.shares[name], n)})
        rows += [{"stratum": stratum, "component": name, "level": level, "n": n,
                  "effect": _estimate(effect, n)} for level, effect in zip(levels, effects,
                                                                           strict=True)]
    rows.append({"stratum": stratum, "component": "interaction", "level": "(share)", "n": n,
                 "share": _estimate(found.shares["interaction"], n)})
    rows += [{"stratum": stratum, "component": "interaction", "level": f"{h} × {m}", "n": n,
              "effect": _estimate(found.interaction[i][j], n)}
             for i, h in enumerate(harnesses) for j, m in enumerate(models)]
    return rows, notes


def harness_model(ctx: Context) -> Iterator[Table]:
    """The decomposition table, the same-model harness swaps and their per-task deltas."""
    scores = ctx.scores
    title = "Harness and model, apart" + (f" (judge {ctx.primary})" if ctx.primary else "")
    columns = [Column("stratum", "workflow"), Column("component", "component"),
               Column("level", "level"), Column("n", "tasks", "int"),
               Column("effect", "effect (points)", "estimate"),
               Column("share", "share of spread", "pct")]
    table = Table(
        "harness_model", title, columns,
        description="Crossed harness x model cells under one workflow: the grand mean, each "
        "harness's and model's main effect (its mean over the other factor minus the grand "
        "mean), each cell's interaction, and each factor's share of the cell means' sum of "
        f"squares; {100 * ctx.options.level:g}% cluster bootstrap intervals over source figures.")
    if scores is None:
        table.insufficient = NO_JUDGMENTS
        yield table
        yield from _swaps(ctx, None)
        return
    strata: dict[str, dict[tuple[str, str], str]] = defaultdict(dict)
    for config_id in scores.configs:
        config = ctx.data.configs.get(config_id)
        if config is not None:
            strata[_stratum(config)][(config.harness, config.model)] = config_id
    for stratum, cells in sorted(strata.items()):
        rows, notes = _grid_rows(ctx, scores, stratum, cells)
        table.rows += rows
        table.notes += notes
    if not table.rows:
        table.insufficient = NEEDS_GRID
    elif any(r["n"] < MIN_TASKS_FOR_INTERVAL for r in table.rows):  # type: ignore[operator]
        table.notes.append(f"no interval where fewer than {MIN_TASKS_FOR_INTERVAL} tasks are "
                           "scored by every cell")
    yield table
    yield from _swaps(ctx, scores)


def _swaps(ctx: Context, scores: JudgeScores | None) -> Iterator[Table]:
    """Same model, other harness: the mean per-task delta with its interval and how many tasks
    went up, down or stayed; and the per-task deltas themselves (a detail table)."""
    columns = [Column("model", "model"), Column("stratum", "workflow"),
               Column("comparison", "comparison"), Column("n", "tasks", "int"),
               Column("delta", "Δ total", "estimate"), Column("better", "better", "int"),
               Column("worse", "worse", "int"), Column("level", "level", "int")]
    swaps = Table("harness_swaps", "Same model, other harness", columns,
                  description="Per task, the model's total in the other harness minus in the "
                  "baseline harness, over the tasks both scored: their mean (with a (cluster) "
                  "bootstrap interval) and how many tasks went up, down or stayed level.")
    detail = Table("harness_task_deltas", "Same model, other harness, per task",
                   [Column("model", "model"), Column("stratum", "workflow"),
                    Column("comparison", "comparison"), Column("task", "task"),
                    Column("cluster", "source figure"), Column("delta", "Δ total", "float")],
                   detail=True, description="One row per model, harness pair and task.")
    if scores is None:
        swaps.insufficient = detail.insufficient = NO_JUDGMENTS
        yield swaps
        yield detail
        return
    pairs = [p for p in effect_pairs(ctx.data.configs, scores.configs) if p.kind == "harness"]
    for pair in pairs:
        config = ctx.data.configs[pair.treatment]
        a = scores.total[scores.config_index(pair.treatment)]
        b = scores.total[scores.config_index(pair.baseline)]
        both = np.isfinite(a) & np.isfinite(b)
        tasks = [t for t, ok in zip(scores.tasks, both, strict=True) if ok]
        deltas = a[both] - b[both]
        names = {"model": config.model, "stratum": _stratum(config), "comparison": pair.label}
        swaps.rows.append({**names, "n": len(tasks), "delta": ctx.mean_interval(deltas, tasks),
                           "better": int((deltas > 0).sum()), "worse": int((deltas < 0).sum()),
                           "level": int((deltas == 0).sum())})
        detail.rows += [{**names, "task": t, "cluster": ctx.data.cluster(t), "delta": float(d)}
                        for t, d in zip(tasks, deltas, strict=True)]
    if not pairs:
        swaps.insufficient = detail.insufficient = (
            "no model was run in two harnesses under the same workflow")
    yield swaps
    yield detail
