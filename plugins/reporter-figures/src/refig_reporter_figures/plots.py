"""The report's figures with matplotlib (object API, Agg canvas): PNG, SVG and PDF of each.

Every figure reads the analysis' tables and score arrays, so it shows the numbers the tables
print. A figure without enough data is skipped with the reason, never drawn empty.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure as MplFigure
from refig_toolkit_analysis import Analysis, Estimate, Table

DPI = 150
SVG_METADATA = {"Date": None}
PDF_METADATA = {"CreationDate": None}


@dataclass(frozen=True)
class Figure:
    """A written figure: its stem, title, caption and the PNG, SVG and PDF paths."""

    name: str
    title: str
    caption: str
    png: Path
    svg: Path
    pdf: Path


@dataclass(frozen=True)
class Skipped:
    """A figure not drawn, and why."""

    name: str
    title: str
    reason: str


def _save(fig: MplFigure, out_dir: Path, name: str, title: str, caption: str) -> Figure:
    png, svg, pdf = (out_dir / f"{name}.{suffix}" for suffix in ("png", "svg", "pdf"))
    fig.savefig(png, dpi=DPI, bbox_inches="tight")
    fig.savefig(svg, bbox_inches="tight", metadata=SVG_METADATA)
    fig.savefig(pdf, bbox_inches="tight", metadata=PDF_METADATA)
    return Figure(name, title, caption, png, svg, pdf)


def _rows_with_estimates(table: Table | None, key: str) -> list[dict]:
    if table is None or table.empty:
        return []
    return [
        r for r in table.rows if isinstance(r.get(key), Estimate) and math.isfinite(r[key].value)
    ]  # type: ignore[union-attr]


def _error_bar(est: Estimate) -> tuple[float, float]:
    """How far the interval reaches below and above the estimate (0 without an interval)."""
    low = est.value if est.low is None else est.low
    high = est.value if est.high is None else est.high
    return est.value - low, high - est.value


def forest(analysis: Analysis, out_dir: Path) -> Figure | Skipped:
    """Paired effects on the total, each a point with its interval, against a zero line."""
    title = "Paired effects on the total score"
    rows = _rows_with_estimates(analysis.table("effects"), "d_total")
    if not rows:
        return Skipped("effects_forest", title, "no paired effects with a score")
    fig = MplFigure(figsize=(7.0, 0.5 * len(rows) + 1.4))
    ax = fig.add_subplot()
    for y, row in enumerate(reversed(rows)):
        est: Estimate = row["d_total"]
        if est.low is not None and est.high is not None:
            ax.hlines(y, est.low, est.high, color="tab:blue", linewidth=2)
        ax.plot(est.value, y, "o", color="tab:blue")
    ax.axvline(0, color="grey", linestyle="--", linewidth=1)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([f"{r['comparison']}  ({r['fixed']})" for r in reversed(rows)])
    ax.set_xlabel("Δ total (treatment − baseline), points")
    ax.set_title(title)
    return _save(
        fig,
        out_dir,
        "effects_forest",
        title,
        "Points are mean paired differences over common tasks; bars are bootstrap intervals.",
    )


def axis_forest(analysis: Analysis, out_dir: Path) -> Figure | Skipped:
    """Paired effects on every rubric axis and the total (the ``axis_effects`` table), one
    panel per axis, each pair a point with its interval against a zero line."""
    title = "Paired effects per rubric axis"
    table = analysis.table("axis_effects")
    keys = [c.key for c in table.columns if c.key.startswith("d_")] if table else []
    rows = _rows_with_estimates(table, keys[-1]) if keys else []
    if table is None or not rows:
        return Skipped("axis_effects_forest", title, "no paired effects with a score")
    fig = MplFigure(figsize=(2.4 * len(keys) + 2.0, 0.45 * len(rows) + 1.8),
                    layout="constrained")
    panels = fig.subplots(1, len(keys), sharey=True, squeeze=False)[0]
    labels = {c.key: c.label for c in table.columns}
    for ax, key in zip(panels, keys, strict=True):
        for y, row in enumerate(reversed(rows)):
            est = row.get(key)
            if not isinstance(est, Estimate) or not math.isfinite(est.value):
                continue
            if est.low is not None and est.high is not None:
                ax.hlines(y, est.low, est.high, color="tab:blue", linewidth=2)
            ax.plot(est.value, y, "o", color="tab:blue")
        ax.axvline(0, color="grey", linestyle="--", linewidth=1)
        ax.set_title(labels[key], fontsize=9)
    panels[0].set_ylim(-0.6, len(rows) - 0.4)
    panels[0].set_yticks(range(len(rows)))
    panels[0].set_yticklabels([f"{r['comparison']}  ({r['fixed']})" for r in reversed(rows)],
                              fontsize=7)
    fig.suptitle(f"{title} (treatment − baseline, points)")
    return _save(
        fig,
        out_dir,
        "axis_effects_forest",
        title,
        "Mean paired differences per axis over the tasks both scored on every axis; bars are "
        "bootstrap intervals sharing one resample.",
    )


def judge_vs_elo(analysis: Analysis, out_dir: Path) -> Figure | Skipped:
    """Each judge's mean total per configuration against human Elo, with Pearson's r."""
    title = "Judge means against human Elo"
    elo_rows = _rows_with_estimates(analysis.table("elo"), "elo")
    if len(elo_rows) < 3 or not analysis.judges:
        return Skipped("judge_vs_elo", title, "needs Elo for at least three configurations")
    fit = analysis.table("judge_elo")
    pearson = {row["judge"]: row["pearson"] for row in fit.rows} if fit is not None else {}
    fig = MplFigure(figsize=(6.5, 4.5))
    ax = fig.add_subplot()
    labelled = False
    for label, scores in analysis.judges.items():
        xs, ys, errs, names = [], [], [[], []], []
        for row in elo_rows:
            if row["config"] not in scores.configs:
                continue
            total = scores.total[scores.config_index(row["config"])]
            if np.isfinite(total).any():
                est: Estimate = row["elo"]
                xs.append(float(np.nanmean(total)))
                ys.append(est.value)
                below, above = _error_bar(est)
                errs[0].append(below)
                errs[1].append(above)
                names.append(row["config"])
        if len(xs) < 3:
            continue
        r = pearson.get(label)  # the judge_elo table's r, over these same configurations
        legend = f"{label} (r = {r.value:.2f})" if isinstance(r, Estimate) else label
        ax.errorbar(xs, ys, yerr=errs, fmt="o", capsize=2, label=legend)
        if not labelled:  # name the configurations once; the other judges' points share rows
            for x, y, name in zip(xs, ys, names, strict=True):
                ax.annotate(name, (x, y), fontsize=6, xytext=(4, -8), textcoords="offset points")
            labelled = True
    if not labelled:
        return Skipped("judge_vs_elo", title, "no judge scored three configurations with Elo")
    ax.set_xlabel("judge mean total")
    ax.set_ylabel("human Elo")
    ax.set_title(title)
    ax.legend(fontsize=8)
    return _save(
        fig,
        out_dir,
        "judge_vs_elo",
        title,
        "Each point is a configuration with its Elo interval; r is Pearson's "
        "correlation across configurations.",
    )


def axis_bars(analysis: Analysis, out_dir: Path) -> Figure | Skipped:
    """Per-axis means as a share of each axis' maximum, one bar per configuration."""
    title = "Per-axis scores"
    scores = analysis.judges.get(analysis.primary or "")
    table = analysis.table("means")
    if scores is None or table is None or table.empty:
        return Skipped("axis_bars", title, "no judged artifacts")
    keys = [*scores.axes, "total"]
    tops = [*scores.max_points, scores.full_marks]
    rows = [r for r in table.rows if isinstance(r.get("total"), Estimate)]
    fig = MplFigure(figsize=(max(6.0, 1.2 * len(keys) + 0.3 * len(rows)), 4.2))
    ax = fig.add_subplot()
    width = 0.8 / max(len(rows), 1)
    for k, row in enumerate(rows):
        values, lows, highs = [], [], []
        for key, top in zip(keys, tops, strict=True):
            est: Estimate = row[key]  # type: ignore[assignment]
            below, above = _error_bar(est)
            values.append(100 * est.value / top)
            lows.append(100 * below / top)
            highs.append(100 * above / top)
        x = np.arange(len(keys)) + (k - (len(rows) - 1) / 2) * width
        ax.bar(x, values, width, yerr=[lows, highs], capsize=2, label=str(row["config"]))
    ax.set_xticks(range(len(keys)))
    ax.set_xticklabels(keys)
    ax.set_ylabel("% of the axis maximum")
    ax.set_ylim(0, 105)
    ax.set_title(f"{title} (judge {analysis.primary})")
    ax.legend(fontsize=7, ncols=2)
    return _save(
        fig,
        out_dir,
        "axis_bars",
        title,
        "Mean per axis as a share of its maximum, with bootstrap intervals.",
    )


def distributions(analysis: Analysis, out_dir: Path) -> Figure | Skipped:
    """Per-task totals per configuration: a box plot with the tasks as points."""
    title = "Score distributions"
    scores = analysis.judges.get(analysis.primary or "")
    if scores is None:
        return Skipped("score_distributions", title, "no judged artifacts")
    data = [scores.total[c][np.isfinite(scores.total[c])] for c in range(len(scores.configs))]
    keep = [k for k, d in enumerate(data) if d.size]
    if not keep:
        return Skipped("score_distributions", title, "no scored task")
    fig = MplFigure(figsize=(max(5.0, 1.1 * len(keep) + 1.5), 4.2))
    ax = fig.add_subplot()
    ax.boxplot([data[k] for k in keep], showfliers=False)
    rng = np.random.default_rng(0)
    for pos, k in enumerate(keep, 1):
        ax.scatter(pos + rng.uniform(-0.15, 0.15, data[k].size), data[k], s=6, alpha=0.5)
    ax.set_xticks(range(1, len(keep) + 1))
    ax.set_xticklabels([scores.configs[k] for k in keep], rotation=20, ha="right", fontsize=7)
    ax.set_ylabel(f"total /{scores.full_marks:g}")
    ax.set_title(f"{title} (judge {analysis.primary})")
    return _save(
        fig,
        out_dir,
        "score_distributions",
        title,
        "Per-task totals (gate failures at 0); boxes show quartiles.",
    )


#: Every figure by the stem of its files, in the order they are drawn.
FIGURES: dict[str, Callable[[Analysis, Path], Figure | Skipped]] = {
    "effects_forest": forest,
    "axis_effects_forest": axis_forest,
    "judge_vs_elo": judge_vs_elo,
    "axis_bars": axis_bars,
    "score_distributions": distributions,
}


def write_figures(analysis: Analysis, out_dir: Path) -> list[Figure | Skipped]:
    """Draw every figure into ``out_dir`` (created), returning what was written or skipped."""
    out_dir.mkdir(parents=True, exist_ok=True)
    return [draw(analysis, out_dir) for draw in FIGURES.values()]
