"""How far the judges can be trusted: repeatability of one judge, agreement between judges."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from itertools import combinations

import numpy as np

from refig_toolkit_analysis import stats
from refig_toolkit_analysis.analysis.context import (
    MIN_ICC_TARGETS,
    MIN_RANK_ARTIFACTS,
    MIN_RANK_CONFIGS,
    Context,
)
from refig_toolkit_analysis.analysis.tables import Cell, Column, Estimate, Table, finite


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
    deterministic = [label for label, scores in ctx.judges.items() if scores.deterministic]
    for label, scores in ctx.judges.items():
        if scores.deterministic:
            continue
        groups = [(cid, [scores.config_index(cid)]) for cid in scores.configs]
        if len(scores.configs) > 1:
            groups.append(("all", list(range(len(scores.configs)))))
        for config_id, index in groups:
            block = scores.repeats[index].reshape(-1, scores.repeats.shape[2])
            block = block[~scores.gated[index].reshape(-1)]  # zeros by construction agree
            counts = np.isfinite(block).sum(axis=1)
            multi = block[counts >= 2]
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
                # Repeats are stored left-aligned, so the first k columns of the artifacts with
                # at least k repeats form a complete targets x raters matrix.
                k = int(Counter(int(c) for c in counts if c >= 2).most_common(1)[0][0])
                complete = block[counts >= k][:, :k]
                row["repeats"] = k
                if complete.shape[0] >= MIN_ICC_TARGETS and np.ptp(complete) > 0:
                    icc = stats.icc_2_1(complete, level=ctx.options.level)
                    row["icc"] = Estimate(icc.icc, finite(icc.low), finite(icc.high))
            rows.append(row)
    table = Table(
        "repeatability",
        "Judge repeatability",
        columns,
        rows,
        description="Artifacts that passed the gate and have at least two successful repeats; "
        f"ICC(2,1) treats repeats as raters and needs {MIN_ICC_TARGETS} artifacts.",
    )
    if deterministic:
        table.notes.append(f"not applicable: deterministic judge ({', '.join(deterministic)}); "
                           "it is scored once, and repeats would agree by construction")
    if not rows and deterministic:
        table.not_applicable = f"deterministic judge ({', '.join(deterministic)})"
    elif not any(r["targets"] for r in rows):
        table.insufficient = (
            "no artifact was judged at least twice by one judge; use "
            "`refig evaluate RUN --repeats 3`"
        )
    yield table


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
        config_ok = np.asarray(both.any(axis=1))  # an array, for the typing
        ma = np.array([ta[c, both[c]].mean() for c in range(len(a.configs)) if config_ok[c]])
        mb = np.array([tb[c, both[c]].mean() for c in range(len(b.configs)) if config_ok[c]])
        cells = both & ~a.gated & ~b.gated
        row: dict[str, Cell] = {
            "judges": f"{la} vs {lb}",
            "configs": int(config_ok.sum()),
            "artifacts": int(cells.sum()),
        }
        if ma.size >= MIN_RANK_CONFIGS:
            agreement = stats.rank_agreement(ma, mb)
            row["spearman"], row["kendall"] = agreement.spearman, agreement.kendall
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
