"""The report's tables, one builder each, and the registry that lets other code add sections.

A builder takes a :class:`~refig.analysis.context.Context` and yields :class:`Table` objects.
:func:`register_section` adds a builder (for example the human-annotation agreement of
``refig annotate``); every reporter then renders its tables with no change.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from refig import stats
from refig.analysis.context import (
    EDITABILITY_HINTS,
    MAX_DROPPED_SHARE,
    MIN_COMPARISONS,
    MIN_DECISIVE,
    MIN_ICC_TARGETS,
    MIN_PAIRED_TASKS,
    MIN_RANK_ARTIFACTS,
    MIN_RANK_CONFIGS,
    SEMANTIC_HINTS,
    Context,
)
from refig.analysis.scores import TOTAL, JudgeScores
from refig.analysis.tables import Cell, Column, Estimate, Table
from refig.models import Configuration

SectionBuilder = Callable[[Context], Iterable[Table]]


# --- registry -----------------------------------------------------------------------------------

_SECTIONS: list[tuple[str, SectionBuilder]] = []


def register_section(name: str, builder: SectionBuilder, *, after: str | None = None) -> None:
    """Add (or replace) a named section builder, at the end or right after section ``after``."""
    global _SECTIONS
    _SECTIONS = [(n, b) for n, b in _SECTIONS if n != name]
    names = [n for n, _ in _SECTIONS]
    position = names.index(after) + 1 if after in names else len(_SECTIONS)
    _SECTIONS.insert(position, (name, builder))


def sections() -> list[tuple[str, SectionBuilder]]:
    """The registered builders, in report order."""
    return list(_SECTIONS)


def section(name: str) -> Callable[[SectionBuilder], SectionBuilder]:
    """Decorator form of :func:`register_section` for the built-in sections."""

    def wrap(builder: SectionBuilder) -> SectionBuilder:
        register_section(name, builder)
        return builder

    return wrap


# --- shared helpers -----------------------------------------------------------------------------


def _no_judge(key: str, title: str) -> Table:
    return Table(
        key,
        title,
        [],
        insufficient="no successful judgments in this run; "
        "score it with `refig evaluate RUN --judge NAME`",
    )


def _axis_columns(scores: JudgeScores) -> list[Column]:
    columns = [
        Column(axis, f"{axis} /{scores.max_points[i]:g}", "estimate", best="max")
        for i, axis in enumerate(scores.axes)
    ]
    columns.append(Column(TOTAL, f"total /{scores.full_marks:g}", "estimate", best="max"))
    return columns


@dataclass(frozen=True)
class EffectPair:
    """Two configurations that differ in exactly one factor (workflow or harness)."""

    kind: str
    treatment: str
    baseline: str
    fixed: str
    label: str


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


def _paired(
    ctx: Context, scores: JudgeScores, pair: EffectPair, column: int
) -> tuple[Estimate, list[str]]:
    """Paired effect (treatment minus baseline) on one score column over common scored tasks."""
    a = scores.mean[scores.config_index(pair.treatment), :, column]
    b = scores.mean[scores.config_index(pair.baseline), :, column]
    both = np.isfinite(a) & np.isfinite(b)
    tasks = [t for t, ok in zip(scores.tasks, both, strict=True) if ok]
    if both.sum() < MIN_PAIRED_TASKS:
        return Estimate(float((a[both] - b[both]).mean()) if both.any() else math.nan), tasks
    return ctx.mean_interval(a[both] - b[both], tasks), tasks


# --- sections -----------------------------------------------------------------------------------


@section("coverage")
def coverage(ctx: Context) -> Iterator[Table]:
    """What was attempted, what passed the gate, what was judged: the denominators."""
    data, scores = ctx.data, ctx.scores
    columns = [
        Column("config", "configuration"),
        Column("tasks", "tasks", "int"),
        Column("succeeded", "succeeded", "int"),
        Column("gate_passed", "gate passed", "int"),
        Column("gate_failures", "gate failures (scored 0)"),
        Column("unevaluated", "not inspected", "int"),
        Column("scored", f"scored by {ctx.primary}" if ctx.primary else "scored", "int"),
        Column("judge_failures", "failed judgments", "int"),
    ]
    rows: list[dict[str, Cell]] = []
    for c, config_id in enumerate(data.config_order):
        outcomes = [o for (_, cid), o in data.outcomes.items() if cid == config_id]
        reasons = Counter(o.gate_reason for o in outcomes if o.gated)
        row: dict[str, Cell] = {
            "config": config_id,
            "tasks": len(outcomes),
            "succeeded": sum(o.attempt.status == "succeeded" for o in outcomes),
            "gate_passed": sum(o.passed for o in outcomes),
            "gate_failures": ", ".join(f"{r} {n}" for r, n in sorted(reasons.items())) or "0",
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
        description="Latest succeeded attempt per task; gate failures score 0 with their reason.",
    )
    if not rows:
        table.insufficient = "no attempts in this run yet; start one with `refig run`"
    yield table


@section("means")
def means(ctx: Context) -> Iterator[Table]:
    """Configuration means per axis with bootstrap intervals, best per column marked."""
    scores = ctx.scores
    title = "Configuration means" + (f" (judge {ctx.primary})" if ctx.primary else "")
    if scores is None:
        yield _no_judge("means", title)
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
        table.notes.append("no interval where fewer than 5 tasks are scored")
    if scores.proxy:
        table.notes.append(f"{ctx.primary} is a proxy judge computed from deterministic metrics")
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


@section("structural")
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
        has = [data.metric(o.artifact, "connector-audit", "has_native_connector") for o in passed]
        count = [data.metric(o.artifact, "connector-audit", "connector_count") for o in passed]
        flat = [data.metric(o.artifact, "flattening", "flattened") for o in passed]
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


@section("economics")
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
        chosen = [o.attempt for (_, cid), o in data.outcomes.items() if cid == config_id]
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


@section("effects")
def effects(ctx: Context) -> Iterator[Table]:
    """Paired workflow and harness effects with paired bootstrap intervals."""
    scores = ctx.scores
    if scores is None:
        yield _no_judge("effects", "Paired effects")
        return
    pairs = effect_pairs(ctx.data.configs, scores.configs)
    edit = scores.axis_index(*EDITABILITY_HINTS)
    columns = [
        Column("kind", "effect"),
        Column("fixed", "held fixed"),
        Column("comparison", "comparison"),
        Column("n", "tasks", "int"),
        Column("d_total", "Δ total", "estimate"),
    ]
    if edit is not None:
        columns.append(Column("d_edit", f"Δ {scores.axes[edit]}", "estimate"))
    columns += [Column("d_cost", "Δ cost", "usd"), Column("d_turns", "Δ turns", "float")]
    rows: list[dict[str, Cell]] = []
    for pair in pairs:
        total, tasks = _paired(ctx, scores, pair, -1)
        row: dict[str, Cell] = {
            "kind": pair.kind,
            "fixed": pair.fixed,
            "comparison": pair.label,
            "n": len(tasks),
            "d_total": total,
            "treatment": pair.treatment,
            "baseline": pair.baseline,
            "d_cost": _paired_numbers(ctx, pair, "cost_usd"),
            "d_turns": _paired_numbers(ctx, pair, "turns"),
        }
        if edit is not None:
            row["d_edit"] = _paired(ctx, scores, pair, edit)[0]
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


@section("repeatability")
def repeatability(ctx: Context) -> Iterator[Table]:
    """Judge repeatability: per-task SD of the total over repeats, and ICC(2,1)."""
    columns = [
        Column("judge", "judge"),
        Column("config", "configuration"),
        Column("targets", "artifacts", "int"),
        Column("repeats", "repeats", "int"),
        Column("mean_sd", "mean per-task SD", "float", 2),
        Column("icc", "ICC(2,1)", "estimate", 3),
    ]
    rows: list[dict[str, Cell]] = []
    for label, scores in ctx.judges.items():
        groups = [(cid, [scores.config_index(cid)]) for cid in scores.configs]
        groups.append(("all", list(range(len(scores.configs)))))
        for config_id, index in groups:
            block = scores.repeats[index].reshape(-1, scores.repeats.shape[2])
            gated = scores.gated[index].reshape(-1)
            block = block[~gated]
            counts = np.isfinite(block).sum(axis=1)
            multi = block[counts >= 2]
            if config_id == "all" and len(index) == 1:
                continue
            row: dict[str, Cell] = {
                "judge": label,
                "config": config_id,
                "targets": int(multi.shape[0]),
                "repeats": None,
                "mean_sd": None,
                "icc": None,
            }
            if multi.shape[0]:
                sds = [float(np.std(r[np.isfinite(r)], ddof=1)) for r in multi]
                row["mean_sd"] = float(np.mean(sds))
                k = int(Counter(int(c) for c in counts if c >= 2).most_common(1)[0][0])
                complete = block[counts >= k][:, :k]
                row["repeats"] = k
                if complete.shape[0] >= MIN_ICC_TARGETS and np.ptp(complete) > 0:
                    icc = stats.icc_2_1(complete, level=ctx.options.level)
                    row["icc"] = Estimate(icc.icc, _finite(icc.low), _finite(icc.high))
            rows.append(row)
    table = Table(
        "repeatability",
        "Judge repeatability",
        columns,
        rows,
        description="Artifacts that passed the gate and have at least two successful repeats; "
        f"ICC(2,1) treats repeats as raters and needs {MIN_ICC_TARGETS} artifacts.",
    )
    if not any(r["targets"] for r in rows):
        table.insufficient = (
            "no artifact was judged at least twice by one judge; use "
            "`refig evaluate RUN --repeats 3`"
        )
    yield table


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


@section("judge_agreement")
def judge_agreement(ctx: Context) -> Iterator[Table]:
    """Cross-judge agreement: rank correlation of configuration means, and per artifact."""
    columns = [
        Column("judges", "judges"),
        Column("configs", "configurations", "int"),
        Column("spearman", "Spearman ρ", "float", 3),
        Column("kendall", "Kendall τ-b", "float", 3),
        Column("artifacts", "artifacts", "int"),
        Column("pearson_artifacts", "Pearson r (artifacts)", "float", 3),
        Column("spearman_artifacts", "Spearman ρ (artifacts)", "float", 3),
    ]
    rows: list[dict[str, Cell]] = []
    for (la, a), (lb, b) in combinations(ctx.judges.items(), 2):
        ta, tb = a.total, b.total
        both = np.isfinite(ta) & np.isfinite(tb)
        config_ok = both.any(axis=1)
        ma = np.array([ta[c, both[c]].mean() for c in range(len(a.configs)) if config_ok[c]])
        mb = np.array([tb[c, both[c]].mean() for c in range(len(b.configs)) if config_ok[c]])
        row: dict[str, Cell] = {
            "judges": f"{la} vs {lb}",
            "configs": int(config_ok.sum()),
            "artifacts": None,
        }
        if ma.size >= MIN_RANK_CONFIGS:
            agreement = stats.rank_agreement(ma, mb)
            row["spearman"], row["kendall"] = agreement.spearman, agreement.kendall
        cells = both & ~a.gated & ~b.gated
        row["artifacts"] = int(cells.sum())
        if cells.sum() >= MIN_RANK_ARTIFACTS:
            per = stats.rank_agreement(ta[cells], tb[cells], pearson=True)
            row["pearson_artifacts"], row["spearman_artifacts"] = per.pearson, per.spearman
        rows.append(row)
    table = Table(
        "judge_agreement",
        "Cross-judge rank agreement",
        columns,
        rows,
        description=f"Configuration means over tasks both judges scored (needs "
        f"{MIN_RANK_CONFIGS} configurations); per-artifact correlations leave gate failures out "
        f"(needs {MIN_RANK_ARTIFACTS}).",
    )
    if len(ctx.judges) < 2:
        table.insufficient = "needs two judges; add one with `refig evaluate RUN --judge NAME`"
    yield table


@section("elo")
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
            "elo": Estimate(row["rating"], _finite(row["low"]), _finite(row["high"])),
            "games": row["games"],
            "wins": row["wins"],
            "ties": row["ties"],
        }
        if scores is not None and row["item"] in scores.configs:
            total = scores.total[scores.config_index(row["item"])]
            entry["judge_mean"] = float(np.nanmean(total)) if np.isfinite(total).any() else None
        table.rows.append(entry)
    share = result.dropped / max(result.resamples, 1)
    if result.dropped:
        note = (
            f"{result.dropped} of {result.resamples} resamples had no maximum-likelihood "
            "estimate and were dropped"
        )
        if share > MAX_DROPPED_SHARE:
            note += "; the intervals are too narrow (more comparisons are needed)"
        table.notes.append(note)
    return table


@section("direction")
def direction(ctx: Context) -> Iterator[Table]:
    """Judge-versus-human direction agreement by absolute margin bucket."""
    yield direction_table(ctx)


def _bucket_label(low: float, high: float) -> str:
    return f"[{low:g}, {high:g})" if math.isfinite(high) else f"≥ {low:g}"


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
        "judge's score margin matches, by absolute margin; Wilson intervals; a zero margin "
        "never matches.",
    )
    best = 0
    for label, scores in ctx.judges.items():
        margins, prefs = judge_margins(ctx, scores)
        if not prefs:
            continue
        result = stats.direction_agreement(
            margins, prefs, ctx.options.buckets, level=ctx.options.level
        )
        best = max(best, result.overall.decisive)
        for bucket in (*result.buckets, result.overall):
            is_all = bucket is result.overall
            table.rows.append(
                {
                    "judge": label,
                    "bucket": "all" if is_all else _bucket_label(bucket.low, bucket.high),
                    "decisive": bucket.decisive,
                    "matches": bucket.matches,
                    "share": Estimate(bucket.share, _finite(bucket.ci_low), _finite(bucket.ci_high))
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
    margins, prefs = [], []
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


@section("weights")
def weights(ctx: Context) -> Iterator[Table]:
    """Editability weight sensitivity: sign-change weights and the ranking under the sweep."""
    scores = ctx.scores
    if scores is None:
        yield _no_judge("weights", "Editability weight sensitivity")
        return
    edit = scores.axis_index(*EDITABILITY_HINTS)
    if edit is None:
        yield Table(
            "weights",
            "Editability weight sensitivity",
            [],
            insufficient="the rubric has no editability axis",
        )
        return
    pairs = effect_pairs(ctx.data.configs, scores.configs)
    index = [(scores.config_index(p.treatment), scores.config_index(p.baseline)) for p in pairs]
    sweep = stats.weight_sign_threshold(scores.axis_points, scores.max_points, edit, index)
    axis = scores.axes[edit]
    columns = [
        Column("kind", "effect"),
        Column("fixed", "held fixed"),
        Column("comparison", "comparison"),
        Column("n", "tasks", "int"),
        Column("effect", f"Δ at {axis}={sweep.default_weight:g}", "float", 2),
        Column("threshold", f"sign changes at {axis} weight", "float", 2),
        Column("in_sweep", "within 10–40"),
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
                "kind": pair.kind,
                "fixed": pair.fixed,
                "comparison": pair.label,
                "n": n,
                "effect": float(sweep.effects_default[p]) if n else None,
                "threshold": w if math.isfinite(w) else "none",
                "in_sweep": ("yes" if 10 <= w <= 40 else "no") if math.isfinite(w) else "no",
                "treatment": pair.treatment,
                "baseline": pair.baseline,
            }
        )
    if not pairs:
        table.insufficient = "no paired effects (see the paired-effects table)"
    elif all(int(n) < MIN_PAIRED_TASKS for n in sweep.pair_tasks):
        table.insufficient = f"paired effects need at least {MIN_PAIRED_TASKS} common scored tasks"
    yield table
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
        f"Ranking stability as the {axis} weight sweeps 10–40",
        columns,
        [r for r in rows if float(r["weight"]) % 5 == 0],  # type: ignore[arg-type]
        description=description,
    )
    if np.isfinite(scores.total).any(axis=1).sum() < MIN_RANK_CONFIGS:
        ranking.insufficient = f"ranking stability needs {MIN_RANK_CONFIGS} scored configurations"
    else:
        ranking.notes.append(
            f"lowest over every integer weight 10–40: Spearman "
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


@section("task_scores")
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
