"""The figure-to-slide report sections: the structural audit (native connectors, flattening,
semantic credit), the edit probes beside the flattening share and the editability axis (the
analysis toolkit's table), and the editability weight sensitivity of every paired effect."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
from refig_toolkit_analysis import (
    EDITABILITY_HINTS,
    MIN_PAIRED_TASKS,
    MIN_RANK_CONFIGS,
    NO_JUDGMENTS,
    PAIR_COLUMNS,
    SEMANTIC_HINTS,
    Cell,
    Column,
    Context,
    JudgeScores,
    Section,
    Table,
    effect_pairs,
    probes_section,
    stats,
)

#: The metrics the structural audit reads (their plugins declare these names).
CONNECTOR_AUDIT = "connector-audit"
FLATTENING = "flattening"


def structural(ctx: Context) -> Iterator[Table]:
    """The structural audit: connectors, flattening, semantic credit."""
    data, scores = ctx.data, ctx.scores
    semantic = scores.axis_index(*SEMANTIC_HINTS) if scores is not None else None
    columns = [
        Column("config", "configuration"),
        Column("artifacts", "audited", "int"),
        Column("no_connector", "no native connector", "pct", best="min"),
        Column("median_connectors", "median connectors", "float", best="max"),
        Column("flattened", "flattened", "pct", best="min"),
    ]
    if scores is not None and semantic is not None:
        columns.append(
            Column(
                "semantic_under_half", f"< half {scores.axes[semantic]} credit", "pct", best="min"
            )
        )
    rows: list[dict[str, Cell]] = []
    measured = 0
    for config_id in data.config_order:
        passed = [o for (_, cid), o in data.outcomes.items() if cid == config_id and o.passed]
        has = [o.metric(CONNECTOR_AUDIT, "has_native_connector") for o in passed]
        count = [o.metric(CONNECTOR_AUDIT, "connector_count") for o in passed]
        flat = [o.metric(FLATTENING, "flattened") for o in passed]
        has_v = [v for v in has if v is not None]
        count_v = [v for v in count if v is not None]
        flat_v = [v for v in flat if v is not None]
        measured += len(has_v) + len(count_v) + len(flat_v)
        row: dict[str, Cell] = {
            "config": config_id,
            "artifacts": len(passed),
            "no_connector": float(np.mean([v == 0 for v in has_v])) if has_v else None,
            "median_connectors": float(np.median(count_v)) if count_v else None,
            "flattened": float(np.mean([v != 0 for v in flat_v])) if flat_v else None,
        }
        if scores is not None and semantic is not None:
            points = scores.axis_points[scores.config_index(config_id), :, semantic]
            ok = np.isfinite(points)
            half = scores.max_points[semantic] / 2
            row["semantic_under_half"] = float((points[ok] < half).mean()) if ok.any() else None
        rows.append(row)
    table = Table(
        "structural",
        "Structural audit",
        columns,
        rows,
        description="Over artifacts that passed the gate (connector-audit and flattening metrics); "
        "semantic credit over every scored task, gate failures included.",
    )
    if measured == 0 and len(columns) == 5:
        table.insufficient = (
            "no connector-audit or flattening values and no judge: run `refig evaluate RUN` first"
        )
    yield table


def weights(ctx: Context) -> Iterator[Table]:
    """Editability weight sensitivity: sign-change weights and the ranking under the sweep."""
    scores = ctx.scores
    title = "Editability weight sensitivity"
    if scores is None:
        yield Table("weights", title, [], insufficient=NO_JUDGMENTS)
        return
    edit = scores.axis_index(*EDITABILITY_HINTS)
    if edit is None:
        yield Table("weights", title, [], insufficient="the rubric has no editability axis")
        return
    pairs = effect_pairs(ctx.data.configs, scores.configs)
    index = [(scores.config_index(p.treatment), scores.config_index(p.baseline)) for p in pairs]
    sweep = stats.weight_sign_threshold(scores.axis_points, scores.max_points, edit, index)
    axis = scores.axes[edit]
    low, high = float(sweep.weights[0]), float(sweep.weights[-1])
    span = f"{low:g}–{high:g}"
    columns = [
        *PAIR_COLUMNS,
        Column("effect", f"Δ at {axis}={sweep.default_weight:g}", "float", 2),
        Column("threshold", f"sign changes at {axis} weight", "float", 2),
        Column("in_sweep", f"within {span}"),
    ]
    table = Table(
        "weights",
        f"{axis.capitalize()} weight sensitivity",
        columns,
        description=f"The {axis} weight at which each paired effect changes sign when the other "
        f"axes are rescaled to keep the total at {sweep.total:g} (exact: the effect is linear "
        "in the weight).",
    )
    for p, pair in enumerate(pairs):
        n = int(sweep.pair_tasks[p])
        w = float(sweep.thresholds[p])
        table.rows.append(
            {
                **pair.cells(),
                "n": n,
                "effect": float(sweep.effects_default[p]) if n else None,
                "threshold": w if math.isfinite(w) else "none",
                "in_sweep": "yes" if math.isfinite(w) and low <= w <= high else "no",
            }
        )
    if not pairs:
        table.insufficient = "no paired effects (see the paired-effects table)"
    elif all(int(n) < MIN_PAIRED_TASKS for n in sweep.pair_tasks):
        table.insufficient = f"paired effects need at least {MIN_PAIRED_TASKS} common scored tasks"
    yield table
    yield from _ranking_tables(scores, sweep, axis, span)


def _ranking_tables(
    scores: JudgeScores, sweep: stats.WeightSweep, axis: str, span: str
) -> Iterator[Table]:
    """Ranking stability under the sweep: every fifth weight, then every weight (detail)."""
    columns = [
        Column("weight", f"{axis} weight", "float", 0),
        Column("spearman", "Spearman ρ", "float", 3),
        Column("kendall", "Kendall τ-b", "float", 3),
    ]
    rows: list[dict[str, Cell]] = [
        {
            "weight": float(w),
            "spearman": float(sweep.spearman[k]),
            "kendall": float(sweep.kendall[k]),
        }
        for k, w in enumerate(sweep.weights)
    ]
    description = (
        "Rank correlation of the configuration ranking (mean reweighted total) with "
        "the ranking at the default weight."
    )
    ranking = Table(
        "weight_ranking",
        f"Ranking stability as the {axis} weight sweeps {span}",
        columns,
        [r for r in rows if float(r["weight"]) % 5 == 0],  # type: ignore[arg-type]
        description=description,
    )
    if np.isfinite(scores.total).any(axis=1).sum() < MIN_RANK_CONFIGS:
        ranking.insufficient = f"ranking stability needs {MIN_RANK_CONFIGS} scored configurations"
    else:
        ranking.notes.append(
            f"lowest over every integer weight {span}: Spearman "
            f"{np.nanmin(sweep.spearman):.3f}, Kendall {np.nanmin(sweep.kendall):.3f}"
        )
    yield ranking
    yield Table(
        "weight_sweep",
        "Ranking stability, every integer weight",
        columns,
        rows,
        description=description,
        detail=True,
        insufficient=ranking.insufficient,
    )


#: Where the sections go in the report: the audit after the means, the weights after the
#: judge-versus-human direction table.
SECTIONS = (
    Section("structural", structural, after="means"),
    Section(
        "probes",
        probes_section([(FLATTENING, "flattened", "flattened")], "move, relabel, delete, recolour"),
        after="structural",
    ),
    Section("weights", weights, after="direction"),
)
