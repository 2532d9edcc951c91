"""The figure-to-code report sections: FigCodeBench's tables from a run.

Per language and configuration (the paper's Table 4; the baselines, all of model ``none``, kept
apart): execution rate, PSNR/SSIM/LPIPS/CIEDE2000 raw (over programs that ran) and weighted
(failures at the worst value), corpus CrystalBLEU, AST, API F1, CodeBERTScore (Python, with a
local model), FCF, smuggling and MMOS; the same per category and per tier; the Friedman test of
tokens and of cost across languages (blocks: the configurations); Kendall's tau between each
image metric and MMOS (per language: :mod:`.correlation`, the paper's Table 9); MMOS against
cost per configuration (FigCodeBench's Figure 1); the MMOS jury's position bias when
`mmos-swapped` judged; and each judge against expert ratings with the experts' agreement when
`refig annotate --rate` collected any.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from refig_metric_code.crystal import PairCounts, corpus_score
from refig_toolkit_analysis import (
    UNRANKED,
    Column,
    Context,
    Outcome,
    Section,
    Table,
    expert_agreement_table,
    judge_human_table,
    probes_section,
    raters_table,
    stats,
)

FIGURE_TO_CODE = "figure-to-code"

#: The judge whose totals are MMOS; without it, the run's primary judge (e.g. the proxy).
JURY, PROBE = "mmos", "mmos-swapped"
IMAGE = ("psnr", "ssim", "lpips", "ciede2000")
CODE = ("ast", "api_f1", "codebertscore_f1", "fcf")


@dataclass
class Row:
    """One (task, configuration) of a figure-to-code run."""

    task: str
    config: str
    reason: str | None
    language: str
    category: str
    tier: str
    values: dict[str, float | None] = field(default_factory=dict)
    mmos: float | None = None
    probe: float | None = None
    tokens: float | None = None
    cost: float | None = None
    #: The program's CrystalBLEU counts (what the corpus value of a group sums); None when the
    #: agent handed in no program.
    bleu: PairCounts | None = None
    #: Why CrystalBLEU is not meaningful for this program (the ignore list covers its reference).
    bleu_void: str | None = None
    #: Why LPIPS is off (no weights), when it is.
    lpips_off: str | None = None
    #: Why CodeBERTScore is empty (not Python, no local model), when it is.
    codebert_off: str | None = None


def _judge_total(outcome: Outcome, judge: str | None) -> float | None:
    """The mean total of ``judge``'s judgments of this outcome (its own task's inputs)."""
    if not outcome.passed or judge is None:
        return None
    totals = [j.total for j in outcome.judgments if j.judge == judge and j.total is not None]
    return sum(totals) / len(totals) if totals else None


def _label(ctx: Context, name: str) -> str | None:
    """The run's label of judge ``name``: ``mmos`` or, as `--judge mmos:M1,M2` stores it,
    ``mmos:M1,M2`` (the first in order when several juries judged)."""
    labels = sorted({j.judge for found in ctx.data.judgments.values() for j in found})
    return next((label for label in labels if label.split(":", 1)[0] == name), None)


def is_proxy(ctx: Context, label: str | None) -> bool:
    """Whether judge ``label`` is a proxy (its agreement with metrics is by construction)."""
    return any(j.proxy for found in ctx.data.judgments.values() for j in found
               if j.judge == label)


def score_label(ctx: Context) -> str:
    """The name of the score column: MMOS when the jury judged, else the judge that did, marked
    when it is a proxy (the offline `code-metrics` is no MMOS)."""
    judge = mmos_judge(ctx)
    if judge is None or judge.split(":", 1)[0] == JURY:
        return "MMOS"
    return f"{judge} (proxy)" if is_proxy(ctx, judge) else judge


def _score(ctx: Context, best: bool = True) -> Column:
    return Column("mmos", score_label(ctx), "float", 1, "max" if best else None)


def mmos_judge(ctx: Context) -> str | None:
    """The judge the MMOS column reads: the jury when it judged, else the primary judge."""
    primary = ctx.primary
    if primary is not None and primary.split(":", 1)[0] == JURY:
        return primary
    return _label(ctx, JURY) or primary


def rows(ctx: Context) -> list[Row]:
    """Every figure-to-code outcome of the run as a :class:`Row`."""
    judge, probe = mmos_judge(ctx), _label(ctx, PROBE)
    found = []
    for (task_id, config_id), outcome in ctx.data.outcomes.items():
        task = ctx.data.tasks.get(task_id)
        if task is None or task.family != "figure-to-code":
            continue
        if outcome.infrastructure and not ctx.options.count_failures:
            continue  # the provider's failure, not the model's: out of the means (Coverage)
        values: dict[str, float | None] = {}
        for name in ("execution", *IMAGE, *(f"{n}_weighted" for n in IMAGE), *CODE,
                     "crystalbleu_sentence", "smuggling"):
            values[name] = outcome.metric("code", name)
        if outcome.gated:  # a program that did not run or made no image
            values |= {"execution": 0.0, "fcf": 0.0,
                       **{f"{n}_weighted": w for n, w in
                          zip(IMAGE, (0.0, 0.0, 1.0, 100.0), strict=True)}}
        usage = outcome.attempt.usage
        stored = outcome.values
        bleu = stored.get(("code", "crystalbleu_sentence"))
        lpips, codebert = (stored.get(("code", n)) for n in ("lpips_weighted",
                                                             "codebertscore_f1"))
        found.append(Row(
            task=task_id, config=config_id, reason=outcome.gate_reason,
            language=str(task.params.get("language", "?")),
            category=str(task.meta.get(
                "category", "?")), tier=str(task.meta.get("tier", "?")), values=values,
            mmos=0.0 if outcome.gated else _judge_total(outcome, judge),
            probe=_judge_total(outcome, probe),
            tokens=float(usage.input_tokens + usage.output_tokens),
            cost=outcome.attempt.cost_usd,
            bleu=PairCounts.from_detail(bleu.detail)
            if bleu is not None and "matches" in bleu.detail else None,
            bleu_void=bleu.detail.get("not_meaningful") if bleu is not None else None,
            lpips_off=lpips.detail.get("note") if lpips is not None else None,
            codebert_off=codebert.detail.get("reason") if codebert is not None else None))
    if any(r.lpips_off for r in found):  # LPIPS is off here: no worst value for failures either
        for row in found:
            row.values["lpips_weighted"] = None
    return found


def _mean(items: Iterable[float | None]) -> float | None:
    kept = [x for x in items if x is not None and math.isfinite(x)]
    return sum(kept) / len(kept) if kept else None


def _grouped(found: list[Row], key: Callable[[Row], tuple[str, ...]]) -> dict[tuple, list[Row]]:
    groups: dict[tuple, list[Row]] = defaultdict(list)
    for row in found:
        groups[key(row)].append(row)
    return dict(sorted(groups.items()))


NOT_MEANINGFUL = "not meaningful"


def _summary(group: list[Row], names: Iterable[str]) -> dict[str, Any]:
    out: dict[str, Any] = {"n": len({r.task for r in group})}
    for name in names:
        out[name] = _mean(r.values.get(name) for r in group)
    counted = [r for r in group if r.bleu is not None]
    out["crystalbleu"] = NOT_MEANINGFUL if counted and all(r.bleu_void for r in counted) \
        else corpus_score(r.bleu for r in counted if r.bleu is not None)
    out["mmos"] = _mean(r.mmos for r in group)
    if out.get("smuggling"):  # its images are the reference's: a smuggler is never "best"
        out[UNRANKED] = "smuggled"
    return out


#: The note of a table with smuggling rows.
UNRANKED_NOTE = "rows with smuggled programs (Smuggled > 0) get no best mark"


def _note_unranked(table: Table) -> Table:
    if any(row.get(UNRANKED) for row in table.rows):
        table.notes.append(UNRANKED_NOTE)
    return table


def bleu_notes(found: list[Row]) -> list[str]:
    """One note per language whose CrystalBLEU is not meaningful, with the reason: on a small
    suite the ignore list covers the references, and 0 would look like a finding; and why LPIPS
    is off, when it is (its columns are then empty, failures included)."""
    off = next((r.lpips_off for r in found if r.lpips_off), None)
    notes = [f"LPIPS —: {off.rstrip('. ')}"] if off else []
    for (language,), group in _grouped(found, lambda r: (r.language,)).items():
        void = [r for r in group if r.bleu_void]
        if void:
            notes.append(f"CrystalBLEU {NOT_MEANINGFUL} for {len(void)} of {len(group)} "
                         f"{language} programs: {void[0].bleu_void}; a real suite (hundreds of "
                         "references per language) gives a value, and so does a smaller ignore "
                         "list (`--metric-opt code:trivial_k=N`)")
    python = [r for r in found if r.language == "python"]
    if python and all(r.values.get("codebertscore_f1") is None for r in python):
        why = next((r.codebert_off for r in python if r.codebert_off), "no value stored")
        notes.append(f"CodeBERTScore —: {why.rstrip('. ')}")
    return notes


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
         Column("codebertscore_f1", "CodeBERTScore F1", "float", 3, "max"),
         Column("fcf", "FCF", "float", 3, "max"), Column("smuggling", "Smuggled", "pct")]
_NAMES = ["execution", *IMAGE, *(f"{n}_weighted" for n in IMAGE), *CODE, "smuggling"]


def by_language(ctx: Context) -> Iterator[Table]:
    found = rows(ctx)
    if not found:
        return
    table = Table("code_by_language", "figure-to-code by language and configuration",
                  [Column("language", "Language"), Column("config", "Configuration"), *_MAIN,
                   _score(ctx)],
                  description="raw: over programs that ran; w(eighted): failures count PSNR 0, "
                  "SSIM 0, LPIPS 1, ΔE00 100 (all at 256 px). CrystalBLEU: the corpus value over "
                  "the group's programs (counts summed, method3 smoothing). FCF at 1024 px, "
                  "failures 0. The score column is from judge "
                  f"{mmos_judge(ctx) or 'none'} (failed runs 0).", notes=bleu_notes(found))
    for (language, config), group in _grouped(found, lambda r: (r.language, r.config)).items():
        table.rows.append({"language": language, "config": config, **_summary(group, _NAMES)})
    yield _note_unranked(table)


def _by(attribute: str, title: str) -> Callable[[Context], Iterator[Table]]:
    def build(ctx: Context) -> Iterator[Table]:
        found = rows(ctx)
        if not found:
            return
        columns = [Column(attribute, attribute.capitalize()), Column("config", "Configuration"),
                   Column("n", "Tasks", "int"), Column("execution", "Exec", "pct", best="max"),
                   Column("ssim_weighted", "SSIM w", "float", 2, "max"),
                   Column("lpips_weighted", "LPIPS w", "float", 2, "min"),
                   Column("fcf", "FCF", "float", 3, "max"), _score(ctx)]
        table = Table(f"code_by_{attribute}", title, columns)
        for (value, config), group in _grouped(
                found, lambda r: (getattr(r, attribute), r.config)).items():
            table.rows.append({attribute: value, "config": config, **_summary(group, _NAMES)})
        yield _note_unranked(table)

    return build


def friedman(ctx: Context) -> Iterator[Table]:
    """Tokens and cost across languages, blocked by configuration (Friedman's chi-square)."""
    from scipy.stats import friedmanchisquare

    found = rows(ctx)
    if not found:
        return
    table = Table("code_friedman", "Tokens and cost across languages (Friedman test)",
                  [Column("quantity", "Quantity"), Column("configs", "Configurations", "int"),
                   Column("languages", "Languages", "int"), Column("chi2", "χ²", "float", 2),
                   Column("p", "p", "float", 4)],
                  description="Each configuration is a block; its mean per task in each "
                  "language is one treatment.")
    languages = sorted({r.language for r in found})
    for quantity in ("tokens", "cost"):
        means = _grouped(found, lambda r: (r.config, r.language))
        blocks = []
        for config in sorted({r.config for r in found}):
            cells = [_mean(getattr(r, quantity) for r in means.get((config, lang), []))
                     for lang in languages]
            # a configuration that made no model call (a baseline) is no block: all ties
            if all(c is not None for c in cells) and any(cells):
                blocks.append(cells)
        row: dict[str, Any] = {"quantity": quantity, "configs": len(blocks),
                               "languages": len(languages), "chi2": None, "p": None}
        if len(blocks) >= 2 and len(languages) >= 3:
            result = friedmanchisquare(*zip(*blocks, strict=True))
            if math.isfinite(result.statistic):  # NaN when every block ties throughout
                row |= {"chi2": float(result.statistic), "p": float(result.pvalue)}
        table.rows.append(row)
    if all(r["chi2"] is None for r in table.rows):
        table.insufficient = "needs at least two configurations and three languages with usage"
    yield table


def kendall(ctx: Context) -> Iterator[Table]:
    """Kendall's tau-b between each image metric (raw, programs that ran) and MMOS."""
    found = [r for r in rows(ctx) if r.mmos is not None and r.values.get("execution")]
    table = Table("code_kendall", f"Image metrics against {score_label(ctx)} (Kendall's tau-b)",
                  [Column("metric", "Metric"), Column("n", "Pairs", "int"),
                   Column("tau", "τ", "float", 3), Column("p", "p", "float", 4)])
    judge = mmos_judge(ctx)
    if is_proxy(ctx, judge):
        table.not_applicable = (f"the scores are those of the proxy {judge}, computed from these "
                                "image metrics: their agreement is true by construction (judge "
                                "with `--judge mmos:M1,M2,M3`)")
        yield table
        return
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
    """MMOS against mean cost per task, per configuration (FigCodeBench's Figure 1), and the
    jury's position bias when the probe judged."""
    found = rows(ctx)
    if not found:
        return
    table = Table("code_mmos_cost", f"{score_label(ctx)} against cost per configuration",
                  [Column("config", "Configuration"), _score(ctx),
                   Column("cost", "Cost / task", "usd", 4, "min"),
                   Column("tokens", "Tokens / task", "float", 0)])
    for (config,), group in _grouped(found, lambda r: (r.config,)).items():
        table.rows.append({"config": config, "mmos": _mean(r.mmos for r in group),
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
               Column("ssim", "SSIM", "float", 3),
               Column("crystalbleu_sentence", "CrystalBLEU (program)", "float", 3),
               Column("ast", "AST", "float", 3), Column("api_f1", "API F1", "float", 3),
               Column("fcf", "FCF", "float", 3), Column("smuggling", "Smuggled", "int"),
               _score(ctx, best=False)]
    table = Table("code_tasks", "figure-to-code per task", columns, detail=True,
                  notes=bleu_notes(found))
    for row in sorted(found, key=lambda r: (r.task, r.config)):
        table.rows.append({"task": row.task, "config": row.config, "language": row.language,
                           "category": row.category, "tier": row.tier, "reason": row.reason,
                           **{k: row.values.get(k) for k in ("ssim", "crystalbleu_sentence",
                                                             "ast", "api_f1", "fcf")},
                           **({"crystalbleu_sentence": NOT_MEANINGFUL} if row.bleu_void else {}),
                           "smuggling": None if row.values.get("smuggling") is None
                           else int(row.values["smuggling"] or 0), "mmos": row.mmos})
    yield table


def judge_human(ctx: Context) -> Iterator[Table]:
    """Each judge of the run (the MMOS jury, each one-model jury, the proxy) against the experts'
    0-20 ratings, overall and per criterion, and the experts' agreement; nothing when no program
    is rated. A jury's members are told apart by judging with each as its own jury too
    (``--judge mmos:M1 --judge mmos:M2 --judge mmos:M1,M2``)."""
    table = judge_human_table(ctx, FIGURE_TO_CODE, key="code_judge_human",
                              title="Each judge against expert ratings (Pearson)",
                              reference="FigCodeBench reports r = 0.826 overall.")
    if table.insufficient is not None:
        return
    yield table
    yield expert_agreement_table(ctx, FIGURE_TO_CODE, key="code_expert_agreement",
                                 title="Agreement between experts (Krippendorff's alpha)",
                                 reference="FigCodeBench reports alpha = 0.766.")
    yield raters_table(ctx, FIGURE_TO_CODE, key="code_raters", title="Expert ratings per annotator")


def correlation_by_language(ctx: Context) -> Iterator[Table]:
    """:func:`refig_family_figure_to_code.correlation.correlation_by_language` (imported here,
    where it can import this module)."""
    from refig_family_figure_to_code.correlation import correlation_by_language as build

    yield from build(ctx)


SECTIONS: list[Section] = [
    Section("code-by-language", by_language),
    Section("probes", probes_section([("code", "smuggling", "raster smuggling")],
                                     "a string, a data value, a colour"), after="means"),
    Section("code-by-category", _by("category", "figure-to-code by category")),
    Section("code-by-tier", _by("tier", "figure-to-code by difficulty tier")),
    Section("code-friedman", friedman),
    Section("code-kendall", kendall),
    Section("code-correlation-by-language", correlation_by_language),
    Section("code-mmos-cost", mmos_cost),
    Section("code-judge-human", judge_human),
    Section("code-tasks", per_task),
]
