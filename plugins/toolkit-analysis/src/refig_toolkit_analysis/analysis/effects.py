"""Paired workflow and harness effects, and how they move with the editability weight."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from refig.models import Configuration

from refig_toolkit_analysis.analysis.context import (
    EDITABILITY_HINTS,
    MIN_PAIRED_TASKS,
    NO_JUDGMENTS,
    Context,
)
from refig_toolkit_analysis.analysis.scores import TOTAL, JudgeScores
from refig_toolkit_analysis.analysis.tables import Cell, Column, Estimate, Table

#: The columns naming a paired effect, shared by the effects and weight tables.
PAIR_COLUMNS = (
    Column("kind", "effect"),
    Column("fixed", "held fixed"),
    Column("comparison", "comparison"),
    Column("n", "tasks", "int"),
)


@dataclass(frozen=True)
class EffectPair:
    """Two configurations that differ in exactly one factor (workflow or harness)."""

    kind: str
    treatment: str
    baseline: str
    fixed: str
    label: str

    def cells(self) -> dict[str, Cell]:
        """The row cells naming the pair (``treatment`` and ``baseline`` beyond the columns)."""
        return {
            "kind": self.kind,
            "fixed": self.fixed,
            "comparison": self.label,
            "treatment": self.treatment,
            "baseline": self.baseline,
        }


def effect_pairs(configs: dict[str, Configuration], ids: Iterable[str]) -> list[EffectPair]:
    """Workflow pairs (same model, harness, options) and harness pairs (same model, workflow).

    The baseline of a pair is the ``direct`` workflow when present, else the alphabetically first.
    """
    found: list[EffectPair] = []
    chosen = [configs[i] for i in ids if i in configs]
    for kind, other in (("workflow", "harness"), ("harness", "workflow")):
        groups: dict[tuple[str, ...], list[Configuration]] = defaultdict(list)
        for c in chosen:
            opts = ",".join(f"{k}={v}" for k, v in sorted(c.options.items()))
            groups[(c.model, getattr(c, other), opts)].append(c)
        for (model, fixed_value, opts), members in sorted(groups.items()):
            members.sort(key=lambda c: (getattr(c, kind) != "direct", getattr(c, kind)))
            for base, treat in combinations(members, 2):
                fixed = (
                    f"{model}@{fixed_value}/*" if kind == "workflow" else f"{model}@*/{fixed_value}"
                )
                if opts:
                    fixed += f" [{opts}]"
                label = f"{getattr(treat, kind)} − {getattr(base, kind)}"
                found.append(EffectPair(kind, treat.id, base.id, fixed, label))
    return found


def paired(
    ctx: Context, scores: JudgeScores, pair: EffectPair, column: int
) -> tuple[Estimate, list[str]]:
    """Paired effect (treatment minus baseline) on one score column over common scored tasks.

    The interval is the (cluster) bootstrap of the per-task differences, which is the paired
    bootstrap: one resample of tasks serves both sides.
    """
    a = scores.mean[scores.config_index(pair.treatment), :, column]
    b = scores.mean[scores.config_index(pair.baseline), :, column]
    both = np.isfinite(a) & np.isfinite(b)
    tasks = [t for t, ok in zip(scores.tasks, both, strict=True) if ok]
    if both.sum() < MIN_PAIRED_TASKS:
        return Estimate(float((a[both] - b[both]).mean()) if both.any() else math.nan), tasks
    return ctx.mean_interval(a[both] - b[both], tasks), tasks


def _paired_numbers(ctx: Context, pair: EffectPair, attr: str) -> float | None:
    """Mean paired difference of an attempt number (turns, cost) over tasks both sides report."""
    data = ctx.data
    diffs = []
    for task_id in data.task_order:
        a = data.outcomes.get((task_id, pair.treatment))
        b = data.outcomes.get((task_id, pair.baseline))
        if a is None or b is None:
            continue
        va, vb = getattr(a.attempt, attr), getattr(b.attempt, attr)
        if va is not None and vb is not None:
            diffs.append(va - vb)
    return float(np.mean(diffs)) if diffs else None


def effects(ctx: Context) -> Iterator[Table]:
    """Paired workflow and harness effects with paired bootstrap intervals."""
    scores = ctx.scores
    if scores is None:
        yield Table("effects", "Paired effects", [], insufficient=NO_JUDGMENTS)
        return
    pairs = effect_pairs(ctx.data.configs, scores.configs)
    edit = scores.axis_index(*EDITABILITY_HINTS)
    columns = [*PAIR_COLUMNS, Column("d_total", "Δ total", "estimate")]
    if edit is not None:
        columns.append(Column("d_edit", f"Δ {scores.axes[edit]}", "estimate"))
    columns += [Column("d_cost", "Δ cost", "usd"), Column("d_turns", "Δ turns", "float")]
    rows: list[dict[str, Cell]] = []
    for pair in pairs:
        total, tasks = paired(ctx, scores, pair, -1)
        row: dict[str, Cell] = {
            **pair.cells(),
            "n": len(tasks),
            "d_total": total,
            "d_cost": _paired_numbers(ctx, pair, "cost_usd"),
            "d_turns": _paired_numbers(ctx, pair, "turns"),
        }
        if edit is not None:
            row["d_edit"] = paired(ctx, scores, pair, edit)[0]
        rows.append(row)
    table = Table(
        "effects",
        f"Paired effects (judge {ctx.primary})",
        columns,
        rows,
        description="Treatment minus baseline over the tasks both scored; intervals resample "
        "the same tasks on both sides.",
    )
    if not pairs:
        table.insufficient = "no two configurations differ in exactly one of workflow or harness"
    elif all(r["n"] < MIN_PAIRED_TASKS for r in rows):  # type: ignore[operator]
        table.notes.append(f"intervals need at least {MIN_PAIRED_TASKS} common scored tasks")
    yield table


def axis_effects(ctx: Context) -> Iterator[Table]:
    """Paired effects on every rubric axis and the total (ReFigBench's Figure 4)."""
    scores = ctx.scores
    if scores is None:
        yield Table("axis_effects", "Paired effects per rubric axis", [],
                    insufficient=NO_JUDGMENTS)
        return
    keys = [*scores.axes, TOTAL]
    columns = [*PAIR_COLUMNS, *(Column(f"d_{k}", f"Δ {k}", "estimate", 2) for k in keys)]
    table = Table(
        "axis_effects",
        f"Paired effects per rubric axis (judge {ctx.primary})",
        columns,
        description="Treatment minus baseline in points on each axis and the total, over the "
        "tasks both scored on every axis; the columns share one resample of tasks.",
    )
    pairs = effect_pairs(ctx.data.configs, scores.configs)
    for pair in pairs:
        a = scores.mean[scores.config_index(pair.treatment)]
        b = scores.mean[scores.config_index(pair.baseline)]
        both = np.isfinite(a).all(axis=1) & np.isfinite(b).all(axis=1)
        tasks = [t for t, ok in zip(scores.tasks, both, strict=True) if ok]
        row: dict[str, Cell] = {**pair.cells(), "n": len(tasks)}
        if tasks:
            found = ctx.intervals(a[both] - b[both], tasks)
            row.update({f"d_{k}": e for k, e in zip(keys, found, strict=True)})
        table.rows.append(row)
    if not pairs:
        table.insufficient = "no two configurations differ in exactly one of workflow or harness"
    elif all(r["n"] < MIN_PAIRED_TASKS for r in table.rows):  # type: ignore[operator]
        table.notes.append(f"intervals need at least {MIN_PAIRED_TASKS} common scored tasks")
    yield table
