"""Each image metric against MMOS per language (the paper's Table 9): Kendall's tau-b,
Spearman's rho and Pearson's r over the programs that ran and were judged."""

from __future__ import annotations

import math
from collections.abc import Iterator

from refig_toolkit_analysis import Column, Context, Table, stats

from refig_family_figure_to_code.report import IMAGE, is_proxy, mmos_judge, rows, score_label

#: The metrics correlated with MMOS: the four image metrics at 256 px, and FCF.
METRICS = (*IMAGE, "fcf")


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def correlation_by_language(ctx: Context) -> Iterator[Table]:
    """One row per language and metric."""
    found = [r for r in rows(ctx) if r.mmos is not None and r.values.get("execution")]
    judge = mmos_judge(ctx)
    table = Table("code_correlation_by_language",
                  f"Image metrics against {score_label(ctx)} per language",
                  [Column("language", "Language"), Column("metric", "Metric"),
                   Column("n", "Pairs", "int"), Column("kendall", "Kendall τ-b", "float", 3),
                   Column("spearman", "Spearman ρ", "float", 3),
                   Column("pearson", "Pearson r", "float", 3)],
                  description="Over programs that ran and were judged, raw values (256 px; FCF "
                  "at 1024 px). LPIPS and ΔE00 are distances: agreement reads negative.")
    if is_proxy(ctx, judge):
        table.not_applicable = (f"the scores are those of the proxy {judge}, computed from these "
                                "metrics (judge with `--judge mmos:M1,M2,M3`)")
        yield table
        return
    for language in sorted({r.language for r in found}):
        mine = [r for r in found if r.language == language]
        for name in METRICS:
            pairs = [(r.values[name], r.mmos) for r in mine if r.values.get(name) is not None]
            agreement = stats.rank_agreement([a for a, _ in pairs], [b for _, b in pairs],
                                             pearson=True) if len(pairs) >= 2 else None
            table.rows.append({
                "language": language, "metric": name, "n": len(pairs),
                "kendall": _finite(agreement.kendall) if agreement else None,
                "spearman": _finite(agreement.spearman) if agreement else None,
                "pearson": _finite(agreement.pearson) if agreement else None})
    if not found:
        table.insufficient = "needs judged programs that ran"
    yield table
