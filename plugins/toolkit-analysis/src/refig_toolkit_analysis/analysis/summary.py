"""Per-configuration summary tables: coverage, score means, the structural audit, economics,
and the per-task detail table."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import numpy as np

from refig_toolkit_analysis.analysis.context import MIN_TASKS_FOR_INTERVAL, NO_JUDGMENTS, Context
from refig_toolkit_analysis.analysis.scores import TOTAL, JudgeScores
from refig_toolkit_analysis.analysis.tables import UNRANKED, Cell, Column, Estimate, Table


def _counted(reasons: Counter[str]) -> str:
    return ", ".join(f"{r} {n}" for r, n in sorted(reasons.items())) or "0"


def coverage(ctx: Context) -> Iterator[Table]:
    """What was attempted, what failed and why, what passed the gate, what was judged: the
    denominators. Failed attempts keep their typed reason; infrastructure failures (the
    provider's or the set-up's, ``refig_toolkit_analysis.analysis.failures``) are counted apart."""
    data, scores = ctx.data, ctx.scores
    counted = ctx.options.count_failures
    columns = [
        Column("config", "configuration"),
        Column("tasks", "tasks", "int"),
        Column("succeeded", "succeeded", "int"),
        Column("gate_passed", "gate passed", "int"),
        Column("model_failures", "failed attempts (scored 0)"),
        Column("infrastructure_failures",
               "infrastructure failures" + (" (scored 0)" if counted else " (not scored)")),
        Column("gate_failures", "gate failures (scored 0)"),
        Column("unevaluated", "not inspected", "int"),
        Column("scored", f"scored by {ctx.primary}" if ctx.primary else "scored", "int"),
        Column("judge_failures", "failed judgments", "int"),
    ]
    rows: list[dict[str, Cell]] = []
    infrastructure = 0
    for c, config_id in enumerate(data.config_order):
        outcomes = [o for (_, cid), o in data.outcomes.items() if cid == config_id]
        failures = [o for o in outcomes if o.failure is not None]
        infra = Counter(o.gate_reason or "" for o in failures if o.infrastructure)
        infrastructure += sum(infra.values())
        row: dict[str, Cell] = {
            "config": config_id,
            "tasks": len(outcomes),
            "succeeded": sum(o.attempt.status == "succeeded" for o in outcomes),
            "gate_passed": sum(o.passed for o in outcomes),
            "model_failures": _counted(Counter(
                o.gate_reason or "" for o in failures if not o.infrastructure)),
            "infrastructure_failures": _counted(infra),
            "gate_failures": _counted(Counter(
                o.gate_reason or "" for o in outcomes if o.gated and o.failure is None)),
            "unevaluated": sum(not o.evaluated for o in outcomes),
            "scored": None,
            "judge_failures": None,
        }
        if scores is not None:
            row["scored"] = int(np.isfinite(scores.total[c]).sum())
            row["judge_failures"] = int(scores.failed[c].sum())
        rows.append(row)
    table = Table(
        "coverage",
        "Coverage",
        columns,
        rows,
        description="Latest succeeded attempt per task; a failed attempt is named by its typed "
        "error, a gate failure by its reason, both scored 0.",
    )
    if infrastructure:
        table.notes.append(infrastructure_note(infrastructure, counted))
    if not rows:
        table.insufficient = "no attempts in this run yet; start one with `refig run`"
    yield table


def infrastructure_note(count: int, counted: bool) -> str:
    """What the report says about infrastructure failures, once for every table of means."""
    what = f"{count} attempt{'s' if count != 1 else ''} failed for the provider or the set-up " \
        "(API errors, provider timeouts, missing keys, unreachable upstream), not the model: "
    if counted:
        return what + "scored 0 (--count-failures)"
    return what + "left out of every mean; --count-failures scores them 0"


def _axis_columns(scores: JudgeScores) -> list[Column]:
    """One column per axis and the total; an axis measured against OCR says so and marks no
    best (it is near full marks by construction for a rebuild that used the same OCR)."""
    columns = [
        Column(axis, f"{axis} /{scores.max_points[i]:g}", "estimate", best="max")
        if axis not in scores.inexact else
        Column(axis, f"{axis} (vs {scores.inexact[axis].upper()}, not in total) "
               f"/{scores.max_points[i]:g}", "estimate")
        for i, axis in enumerate(scores.axes)
    ]
    columns.append(Column(TOTAL, f"total /{scores.full_marks:g}", "estimate", best="max"))
    return columns


def means(ctx: Context) -> Iterator[Table]:
    """Configuration means per axis with bootstrap intervals, best per column marked."""
    scores = ctx.scores
    title = "Configuration means" + (f" (judge {ctx.primary})" if ctx.primary else "")
    if scores is None:
        yield Table("means", title, [], insufficient=NO_JUDGMENTS)
        return
    columns = [
        Column("config", "configuration"),
        Column("n", "tasks", "int"),
        *_axis_columns(scores),
    ]
    rows: list[dict[str, Cell]] = []
    small = False
    for c, config_id in enumerate(scores.configs):
        cube = scores.mean[c]
        ok = np.isfinite(cube).all(axis=1)
        tasks = [t for t, keep in zip(scores.tasks, ok, strict=True) if keep]
        row: dict[str, Cell] = {"config": config_id, "n": int(ok.sum())}
        if ok.any():
            estimates = ctx.intervals(cube[ok], tasks)
            small |= estimates[-1].low is None
            for column, estimate in zip(columns[2:], estimates, strict=True):
                row[column.key] = estimate
        rows.append(row)
    table = Table(
        "means",
        title,
        columns,
        rows,
        description=f"Mean over tasks with {100 * ctx.options.level:g}% "
        f"{'cluster ' if ctx.clustered else ''}percentile bootstrap intervals "
        f"({ctx.options.resamples:,} resamples); gate failures count as 0. Best per column marked.",
    )
    if small:
        table.notes.append(
            f"no interval where fewer than {MIN_TASKS_FOR_INTERVAL} tasks are scored"
        )
    if infra := sum(o.infrastructure for o in ctx.data.outcomes.values()):
        table.notes.append(infrastructure_note(infra, ctx.options.count_failures))
    if not any(isinstance(r.get(TOTAL), Estimate) for r in rows):
        table.insufficient = f"no artifact is scored by {ctx.primary} yet"
    yield table
    if len(ctx.judges) > 1:
        yield _totals_by_judge(ctx)


def _totals_by_judge(ctx: Context) -> Table:
    columns = [Column("config", "configuration")]
    columns += [Column(j, j, "estimate", best="max") for j in ctx.judges]
    rows: list[dict[str, Cell]] = []
    for config_id in ctx.data.config_order:
        row: dict[str, Cell] = {"config": config_id}
        for label, scores in ctx.judges.items():
            total = scores.total[scores.config_index(config_id)]
            ok = np.isfinite(total)
            tasks = [t for t, keep in zip(scores.tasks, ok, strict=True) if keep]
            row[label] = ctx.mean_interval(total[ok], tasks) if ok.any() else None
        rows.append(row)
    return Table(
        "totals_by_judge",
        "Total score by judge",
        columns,
        rows,
        description="Mean total per configuration under each judge, with intervals.",
    )


def economics(ctx: Context) -> Iterator[Table]:
    """Turns, cost and time per configuration."""
    data = ctx.data
    columns = [
        Column("config", "configuration"),
        Column("attempts", "tasks", "int"),
        Column("median_turns", "median turns", "float", best="min"),
        Column("mean_cost", "mean cost", "usd", best="min"),
        Column("total_cost", "spent (all tries)", "usd"),
        Column("mean_wall", "mean wall s", "float", best="min"),
        Column("mean_output_tokens", "mean output tokens", "int"),
    ]
    rows: list[dict[str, Cell]] = []
    for config_id in data.config_order:
        outcomes = [o for (_, cid), o in data.outcomes.items() if cid == config_id]
        chosen = [o.attempt for o in outcomes]
        every = [a for a in data.attempts if a.config_id == config_id]
        turns = [a.turns for a in chosen if a.turns is not None]
        costs = [a.cost_usd for a in chosen if a.cost_usd is not None]
        spent = [a.cost_usd for a in every if a.cost_usd is not None]
        rows.append(
            {
                "config": config_id,
                "attempts": len(chosen),
                "median_turns": float(np.median(turns)) if turns else None,
                "mean_cost": float(np.mean(costs)) if costs else None,
                "total_cost": float(np.sum(spent)) if spent else None,
                "mean_wall": float(np.mean([a.wall_seconds for a in chosen])) if chosen else None,
                "mean_output_tokens": float(np.mean([a.usage.output_tokens for a in chosen]))
                if chosen
                else None,
                # no turns and no cost because nothing ran: never the "best" economics
                UNRANKED: "every attempt failed" if outcomes and all(
                    o.failure is not None for o in outcomes) else None,
            }
        )
    table = Table(
        "economics",
        "Workflow economics",
        columns,
        rows,
        description="Per task, from the attempt that is scored; paired differences "
        "are in the paired-effects table.",
    )
    if not rows:
        table.insufficient = "no attempts in this run yet"
    yield table


def task_scores(ctx: Context) -> Iterator[Table]:
    """The tidy per configuration x task x judge table (JSON and HTML; not printed)."""
    columns = [
        Column("config", "configuration"),
        Column("task", "task"),
        Column("judge", "judge"),
        Column("gate", "gate"),
        Column("repeats", "repeats", "int"),
        Column(TOTAL, "total", "float"),
    ]
    table = Table(
        "task_scores",
        "Scores per configuration and task",
        columns,
        detail=True,
        description="Per-axis means over a judge's successful repeats.",
    )
    data = ctx.data
    for (task_id, config_id), outcome in sorted(data.outcomes.items()):
        gate = outcome.gate_reason or ("passed" if outcome.evaluated else "not inspected")
        base: dict[str, Cell] = {
            "config": config_id,
            "task": task_id,
            "cluster": data.cluster(task_id),
            "gate": gate,
            "gate_detail": outcome.gate_detail,
            "failure": outcome.failure.kind if outcome.failure else None,
            "infrastructure": outcome.infrastructure,
        }
        if not ctx.judges:
            table.rows.append({**base, "judge": None, "repeats": 0, TOTAL: None})
        for label, scores in ctx.judges.items():
            c, t = scores.config_index(config_id), scores.task_index(task_id)
            row = dict(
                base,
                judge=label,
                repeats=int(np.isfinite(scores.repeats[c, t]).sum()),
                failed_judgments=int(scores.failed[c, t]),
            )
            for a, axis in enumerate((*scores.axes, TOTAL)):
                value = scores.mean[c, t, a]
                row[axis] = float(value) if np.isfinite(value) else None
            table.rows.append(row)
    yield table
