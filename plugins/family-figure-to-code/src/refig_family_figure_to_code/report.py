"""The figure-to-code report sections: FigCodeBench's tables from a run.

Per language and model: execution rate, PSNR/SSIM/LPIPS/CIEDE2000 raw (over programs that ran)
and weighted (failures at the worst value), CrystalBLEU, AST, API F1, FCF, smuggling and MMOS;
the same per category and per tier; the Friedman test of tokens and of cost across languages
(blocks: the models); Kendall's tau between each image metric and MMOS; MMOS against cost per
model (FigCodeBench's Figure 1); the MMOS jury's position bias when `mmos-swapped` judged; and
MMOS against expert ratings with the experts' agreement when `refig annotate --rate` collected any.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from refig import stats
from refig.plugin import FIGURE_TO_CODE
from refig.plugin.analysis import (
    Column,
    Context,
    Section,
    Table,
    expert_agreement_table,
    judge_human_table,
    raters_table,
)

#: The judge whose totals are MMOS; without it, the run's primary judge (e.g. the proxy).
JURY, PROBE = "mmos", "mmos-swapped"
IMAGE = ("psnr", "ssim", "lpips", "ciede2000")
CODE = ("crystalbleu", "ast", "api_f1", "fcf")


@dataclass
class Row:
    """One (task, configuration) of a figure-to-code run."""

    task: str
    config: str
    reason: str | None
    language: str
    model: str
    category: str
    tier: str
    values: dict[str, float | None] = field(default_factory=dict)
    mmos: float | None = None
    probe: float | None = None
    tokens: float | None = None
    cost: float | None = None


def _judge_total(ctx: Context, artifact: str | None, judge: str | None) -> float | None:
    if artifact is None or judge is None:
        return None
    totals = [j.total for j in ctx.data.judgments.get(artifact, [])
              if j.judge == judge and j.total is not None]
    return sum(totals) / len(totals) if totals else None


def mmos_judge(ctx: Context) -> str | None:
    """The judge the MMOS column reads: the jury when it judged, else the primary judge."""
    labels = {j.judge for found in ctx.data.judgments.values() for j in found}
    return JURY if JURY in labels else ctx.primary


def rows(ctx: Context) -> list[Row]:
    """Every figure-to-code outcome of the run as a :class:`Row`."""
    judge = mmos_judge(ctx)
    found = []
    for (task_id, config_id), outcome in ctx.data.outcomes.items():
        task = ctx.data.tasks.get(task_id)
        if task is None or task.family != "figure-to-code":
            continue
        config = ctx.data.configs.get(config_id)
        artifact = outcome.artifact if outcome.passed else None
        values: dict[str, float | None] = {}
        for name in ("execution", *IMAGE, *(f"{n}_weighted" for n in IMAGE), *CODE,
                     "smuggling"):
            values[name] = ctx.data.metric(outcome.artifact, "code", name)
        if outcome.gated:  # a program that did not run or made no image
            values |= {"execution": 0.0, "fcf": 0.0,
                       **{f"{n}_weighted": w for n, w in
                          zip(IMAGE, (0.0, 0.0, 1.0, 100.0), strict=True)}}
        usage = outcome.attempt.usage
        found.append(Row(
            task=task_id, config=config_id, reason=outcome.gate_reason,
            language=str(task.params.get("language", "?")),
            model=config.model if config else config_id, category=str(task.meta.get(
                "category", "?")), tier=str(task.meta.get("tier", "?")), values=values,
            mmos=0.0 if outcome.gated else _judge_total(ctx, artifact, judge),
            probe=_judge_total(ctx, artifact, PROBE),
            tokens=float(usage.input_tokens + usage.output_tokens),
            cost=outcome.attempt.cost_usd))
    return found


def _mean(items: Iterable[float | None]) -> float | None:
    kept = [x for x in items if x is not None and math.isfinite(x)]
    return sum(kept) / len(kept) if kept else None


def _grouped(found: list[Row], key: Callable[[Row], tuple[str, ...]]) -> dict[tuple, list[Row]]:
    groups: dict[tuple, list[Row]] = defaultdict(list)
    for row in found:
        groups[key(row)].append(row)
    return dict(sorted(groups.items()))


def _summary(group: list[Row], names: Iterable[str]) -> dict[str, Any]:
    out: dict[str, Any] = {"n": len(group)}
    for name in names:
        out[name] = _mean(r.values.get(name) for r in group)
    out["mmos"] = _mean(r.mmos for r in group)
    return out


def _image_columns() -> list[Column]:
    columns = []
    for name, label, best in (("psnr", "PSNR", "max"), ("ssim", "SSIM", "max"),
                              ("lpips", "LPIPS", "min"), ("ciede2000", "ΔE00", "min")):
        columns.append(Column(name, f"{label} raw", "float", 2, best))  # type: ignore[arg-type]
        columns.append(Column(f"{name}_weighted", f"{label} w", "float", 2,
                              best))  # type: ignore[arg-type]
    return columns


_MAIN = [Column("n", "Tasks", "int"), Column("execution", "Exec", "pct", best="max"),
         *_image_columns(),
         Column("crystalbleu", "CrystalBLEU", "float", 3, "max"),
         Column("ast", "AST", "float", 3, "max"), Column("api_f1", "API F1", "float", 3, "max"),
         Column("fcf", "FCF", "float", 3, "max"), Column("smuggling", "Smuggled", "pct"),
         Column("mmos", "MMOS", "float", 1, "max")]
_NAMES = ["execution", *IMAGE, *(f"{n}_weighted" for n in IMAGE), *CODE, "smuggling"]


def by_language(ctx: Context) -> Iterator[Table]:
    found = rows(ctx)
    if not found:
        return
    table = Table("code_by_language", "figure-to-code by language and model",
                  [Column("language", "Language"), Column("model", "Model"), *_MAIN],
                  description="raw: over programs that ran; w(eighted): failures count PSNR 0, "
                  "SSIM 0, LPIPS 1, ΔE00 100. MMOS from judge "
                  f"{mmos_judge(ctx) or 'none'} (failed runs 0).")
    for (language, model), group in _grouped(found, lambda r: (r.language, r.model)).items():
        table.rows.append({"language": language, "model": model, **_summary(group, _NAMES)})
    yield table


def _by(attribute: str, title: str) -> Callable[[Context], Iterator[Table]]:
    def build(ctx: Context) -> Iterator[Table]:
        found = rows(ctx)
        if not found:
            return
        columns = [Column(attribute, attribute.capitalize()), Column("model", "Model"),
                   Column("n", "Tasks", "int"), Column("execution", "Exec", "pct", best="max"),
                   Column("ssim_weighted", "SSIM w", "float", 2, "max"),
                   Column("lpips_weighted", "LPIPS w", "float", 2, "min"),
                   Column("fcf", "FCF", "float", 3, "max"), Column("mmos", "MMOS", "float", 1,
                                                                   "max")]
        table = Table(f"code_by_{attribute}", title, columns)
        for (value, model), group in _grouped(
                found, lambda r: (getattr(r, attribute), r.model)).items():
            table.rows.append({attribute: value, "model": model, **_summary(group, _NAMES)})
        yield table

    return build


def friedman(ctx: Context) -> Iterator[Table]:
    """Tokens and cost across languages, blocked by model (Friedman's chi-square)."""
    from scipy.stats import friedmanchisquare

    found = rows(ctx)
    if not found:
        return
    table = Table("code_friedman", "Tokens and cost across languages (Friedman test)",
                  [Column("quantity", "Quantity"), Column("models", "Models", "int"),
                   Column("languages", "Languages", "int"), Column("chi2", "χ²", "float", 2),
                   Column("p", "p", "float", 4)],
                  description="Each model is a block; its mean per task in each language is "
                  "one treatment.")
    languages = sorted({r.language for r in found})
    for quantity in ("tokens", "cost"):
        means = _grouped(found, lambda r: (r.model, r.language))
        blocks = []
        for model in sorted({r.model for r in found}):
            cells = [_mean(getattr(r, quantity) for r in means.get((model, lang), []))
                     for lang in languages]
            if all(c is not None for c in cells):
                blocks.append(cells)
        row: dict[str, Any] = {"quantity": quantity, "models": len(blocks),
                               "languages": len(languages), "chi2": None, "p": None}
        if len(blocks) >= 2 and len(languages) >= 3:
            result = friedmanchisquare(*zip(*blocks, strict=True))
            row |= {"chi2": float(result.statistic), "p": float(result.pvalue)}
        table.rows.append(row)
    if all(r["chi2"] is None for r in table.rows):
        table.insufficient = "needs at least two models and three languages with usage"
    yield table


def kendall(ctx: Context) -> Iterator[Table]:
    """Kendall's tau-b between each image metric (raw, programs that ran) and MMOS."""
    found = [r for r in rows(ctx) if r.mmos is not None and r.values.get("execution")]
    table = Table("code_kendall", "Image metrics against MMOS (Kendall's tau-b)",
                  [Column("metric", "Metric"), Column("n", "Pairs", "int"),
                   Column("tau", "τ", "float", 3), Column("p", "p", "float", 4)])
    for name in IMAGE:
        pairs = [(r.values[name], r.mmos) for r in found if r.values.get(name) is not None]
        agreement = stats.rank_agreement([a for a, _ in pairs], [b for _, b in pairs]) \
            if len(pairs) >= 2 else None
        table.rows.append({"metric": name, "n": len(pairs),
                           "tau": agreement.kendall if agreement else None,
                           "p": agreement.kendall_p if agreement else None})
    if not found:
        table.insufficient = "needs judged programs that ran"
    yield table


def mmos_cost(ctx: Context) -> Iterator[Table]:
    """MMOS against mean cost per task, per model (FigCodeBench's Figure 1), and the jury's
    position bias when the probe judged."""
    found = rows(ctx)
    if not found:
        return
    table = Table("code_mmos_cost", "MMOS against cost per model",
                  [Column("model", "Model"), Column("mmos", "MMOS", "float", 1, "max"),
                   Column("cost", "Cost / task", "usd", 4, "min"),
                   Column("tokens", "Tokens / task", "float", 0)])
    for (model,), group in _grouped(found, lambda r: (r.model,)).items():
        table.rows.append({"model": model, "mmos": _mean(r.mmos for r in group),
                           "cost": _mean(r.cost for r in group),
                           "tokens": _mean(r.tokens for r in group)})
    yield table
    shifts = [r.probe - r.mmos for r in found if r.probe is not None and r.mmos is not None]
    if shifts:
        yield Table("code_position_bias", "MMOS jury position bias (images swapped)",
                    [Column("n", "Pairs", "int"), Column("shift", "Mean shift", "float", 2)],
                    rows=[{"n": len(shifts), "shift": sum(shifts) / len(shifts)}],
                    description="mmos-swapped total minus mmos total, same artifacts.")


def per_task(ctx: Context) -> Iterator[Table]:
    """One row per task and configuration (JSON and HTML only): what the task pages show."""
    found = rows(ctx)
    if not found:
        return
    columns = [Column("task", "Task"), Column("config", "Configuration"),
               Column("language", "Language"), Column("category", "Category"),
               Column("tier", "Tier"), Column("reason", "Failure"),
               Column("ssim", "SSIM", "float", 3), Column("crystalbleu", "CrystalBLEU", "float", 3),
               Column("ast", "AST", "float", 3), Column("api_f1", "API F1", "float", 3),
               Column("fcf", "FCF", "float", 3), Column("smuggling", "Smuggled", "int"),
               Column("mmos", "MMOS", "float", 1)]
    table = Table("code_tasks", "figure-to-code per task", columns, detail=True)
    for row in sorted(found, key=lambda r: (r.task, r.config)):
        table.rows.append({"task": row.task, "config": row.config, "language": row.language,
                           "category": row.category, "tier": row.tier, "reason": row.reason,
                           **{k: row.values.get(k) for k in ("ssim", "crystalbleu", "ast",
                                                             "api_f1", "fcf")},
                           "smuggling": None if row.values.get("smuggling") is None
                           else int(row.values["smuggling"] or 0), "mmos": row.mmos})
    yield table


def judge_human(ctx: Context) -> Iterator[Table]:
    """MMOS (or the primary judge) against the experts' 0-20 ratings, overall and per criterion,
    and the experts' agreement; nothing when no program is rated."""
    judge = mmos_judge(ctx)
    table = judge_human_table(ctx, FIGURE_TO_CODE, key="code_judge_human",
                              title="MMOS against expert ratings (Pearson)",
                              judges=[judge] if judge else [],
                              reference="FigCodeBench reports r = 0.826 overall.")
    if table.insufficient is not None:
        return
    yield table
    yield expert_agreement_table(ctx, FIGURE_TO_CODE, key="code_expert_agreement",
                                 title="Agreement between experts (Krippendorff's alpha)",
                                 reference="FigCodeBench reports alpha = 0.766.")
    yield raters_table(ctx, FIGURE_TO_CODE, key="code_raters", title="Expert ratings per annotator")


SECTIONS: list[Section] = [
    Section("code-by-language", by_language),
    Section("code-by-category", _by("category", "figure-to-code by category")),
    Section("code-by-tier", _by("tier", "figure-to-code by difficulty tier")),
    Section("code-friedman", friedman),
    Section("code-kendall", kendall),
    Section("code-mmos-cost", mmos_cost),
    Section("code-judge-human", judge_human),
    Section("code-tasks", per_task),
]
