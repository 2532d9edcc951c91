"""The summary page's plots as inline SVG: nothing to fetch, nothing to run, scales with the page.

Score distributions per configuration, paired effects with their intervals, judge against judge
with the agreement numbers, and cost against score. Every label is escaped; the numbers come from
the analysis (the same tables the report prints), never recomputed here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from markupsafe import Markup, escape
from refig_toolkit_analysis import Analysis, Estimate

WIDTH, ROW, LEFT, RIGHT, TOP = 720, 26, 230, 30, 24
PALETTE = ("#1f6fb4", "#d1495b", "#2a9d8f", "#e9a03b", "#7a5195", "#5c946e", "#8d6e63")


@dataclass(frozen=True)
class Plot:
    """One plot: its title, a caption, and the SVG (or why it is not drawn)."""

    key: str
    title: str
    caption: str
    svg: Markup | None = None
    missing: str = ""


def _x(value: float, low: float, high: float) -> float:
    span = (high - low) or 1.0
    return LEFT + (value - low) / span * (WIDTH - LEFT - RIGHT)


def _svg(height: float, body: Sequence[str], label: str) -> Markup:
    return Markup(
        f'<svg class="plot" viewBox="0 0 {WIDTH} {height:.0f}" role="img" '
        f'aria-label="{escape(label)}" xmlns="http://www.w3.org/2000/svg">{"".join(body)}</svg>'
    )


def nice_step(span: float, ticks: int = 5) -> float:
    """A round tick step (1, 2, 2.5 or 5 times a power of ten) giving about ``ticks`` steps."""
    if not math.isfinite(span) or span <= 0:
        return 1.0
    raw = span / ticks
    power = 10.0 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw * 0.999)


def nice_ticks(low: float, high: float, ticks: int = 5) -> list[float]:
    """Round tick values from ``low`` to ``high`` (both multiples of the step when the caller
    rounded them with :func:`nice_step`)."""
    step = nice_step(high - low, ticks)
    first = math.ceil(low / step - 1e-9)
    count = math.floor(high / step + 1e-9) - first
    return [round((first + k) * step, 10) for k in range(count + 1)]


def _axis(low: float, high: float, y: float, ticks: int = 5, fmt: str = "{:g}") -> list[str]:
    parts = [f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y}" y2="{y}" stroke="#999"/>']
    for value in nice_ticks(low, high, ticks):
        x = _x(value, low, high)
        parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{y}" y2="{y + 4}" stroke="#999"/>'
                     f'<text x="{x:.1f}" y="{y + 16}" text-anchor="middle" class="tick">'
                     f"{escape(fmt.format(value))}</text>")
    return parts


def _label(text: str, y: float) -> str:
    short = text if len(text) <= 34 else text[:33] + "…"
    return (f'<text x="{LEFT - 8}" y="{y + 4:.1f}" text-anchor="end" class="label">'
            f"<title>{escape(text)}</title>{escape(short)}</text>")


def distributions(analysis: Analysis) -> Plot:
    """Each configuration's totals under the main judge: the tasks as dots over a box."""
    title = "Score distribution per configuration"
    scores = analysis.context.scores
    if scores is None:
        return Plot("distributions", title, "", missing="no judgments yet")
    top = scores.full_marks or 100.0
    body: list[str] = []
    rng = np.random.default_rng(0)  # a fixed jitter: the picture is the same on every reload
    for c, config in enumerate(scores.configs):
        y = TOP + c * ROW * 1.4
        values = scores.total[c][np.isfinite(scores.total[c])]
        body.append(_label(config, y))
        if values.size:
            q1, med, q3 = np.percentile(values, [25, 50, 75])
            body.append(f'<rect x="{_x(q1, 0, top):.1f}" y="{y - 8}" width="'
                        f'{max(_x(q3, 0, top) - _x(q1, 0, top), 1):.1f}" height="16" '
                        f'fill="#e8eef6" stroke="#8aa"/>'
                        f'<line x1="{_x(med, 0, top):.1f}" x2="{_x(med, 0, top):.1f}" '
                        f'y1="{y - 8}" y2="{y + 8}" stroke="#333" stroke-width="2"/>')
            for v, jitter in zip(values, rng.uniform(-6, 6, values.size), strict=True):
                body.append(f'<circle cx="{_x(v, 0, top):.1f}" cy="{y + jitter:.1f}" r="2.5" '
                            f'fill="{PALETTE[c % len(PALETTE)]}" fill-opacity="0.7"/>')
    height = TOP + len(scores.configs) * ROW * 1.4
    body += _axis(0, top, height - 10)
    caption = (f"Judge {analysis.primary}: one dot per task (gate failures at 0), box from the "
               f"first to the third quartile, line at the median.")
    return Plot("distributions", title, caption, _svg(height + 12, body, title))


def _estimate(cell: object) -> Estimate | None:
    return cell if isinstance(cell, Estimate) and math.isfinite(cell.value) else None


def effects(analysis: Analysis) -> Plot:
    """Paired effects (treatment minus baseline) with their bootstrap intervals."""
    title = "Paired effects"
    table = analysis.table("effects")
    rows = [(r, e) for r in (table.rows if table else []) if (e := _estimate(r.get("d_total")))]
    if not rows:
        reason = table.insufficient if table is not None and table.insufficient else \
            "no paired effects"
        return Plot("effects", title, "", missing=reason)
    ends = [v for _, e in rows for v in (e.value, e.low, e.high) if v is not None]
    widest = max(abs(v) for v in ends) * 1.05 or 1.0
    step = nice_step(2 * widest, 6)
    bound = math.ceil(widest / step) * step  # the axis ends on a round tick
    body = []
    for i, (row, est) in enumerate(rows):
        y = TOP + i * ROW
        body.append(_label(f"{row.get('kind')}: {row.get('comparison')}", y))
        if est.low is not None and est.high is not None:
            body.append(f'<line x1="{_x(est.low, -bound, bound):.1f}" x2="'
                        f'{_x(est.high, -bound, bound):.1f}" y1="{y}" y2="{y}" stroke="#333"/>')
        body.append(f'<circle cx="{_x(est.value, -bound, bound):.1f}" cy="{y}" r="4" '
                    f'fill="#1f6fb4"><title>{est.value:+.2f}</title></circle>')
    height = TOP + len(rows) * ROW
    zero = _x(0, -bound, bound)
    body.append(f'<line x1="{zero:.1f}" x2="{zero:.1f}" y1="{TOP - 12}" y2="{height - 10}" '
                f'stroke="#bbb" stroke-dasharray="3 3"/>')
    body += _axis(-bound, bound, height - 10, 6, "{:+g}")
    caption = f"Δ total (judge {analysis.primary}) with {analysis.context.options.level:.0%} "\
              "paired bootstrap intervals; left of the dashed line the treatment is worse."
    return Plot("effects", title, caption, _svg(height + 12, body, title))


def _scatter(points: list[tuple[float, float, int]], xmax: float, ymax: float, xlabel: str,
             ylabel: str, label: str, diagonal: bool) -> Markup:
    size, pad = 360, 44

    def px(v: float) -> float:
        return pad + v / (xmax or 1) * (size - pad - 10)

    def py(v: float) -> float:
        return size - pad - v / (ymax or 1) * (size - pad - 10)

    body = [f'<rect x="{pad}" y="10" width="{size - pad - 10}" height="{size - pad - 10}" '
            f'fill="none" stroke="#999"/>']
    if diagonal:
        body.append(f'<line x1="{px(0)}" y1="{py(0)}" x2="{px(xmax)}" y2="{py(ymax)}" '
                    f'stroke="#bbb" stroke-dasharray="3 3"/>')
    for x, y, c in points:
        body.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" '
                    f'fill="{PALETTE[c % len(PALETTE)]}" fill-opacity="0.7"/>')
    body.append(f'<text x="{size / 2 + pad / 2}" y="{size - 8}" text-anchor="middle" '
                f'class="label">{escape(xlabel)}</text>'
                f'<text x="12" y="{size / 2}" text-anchor="middle" class="label" '
                f'transform="rotate(-90 12 {size / 2})">{escape(ylabel)}</text>'
                f'<text x="{pad}" y="{size - pad + 14}" class="tick">0</text>'
                f'<text x="{size - 10}" y="{size - pad + 14}" text-anchor="end" class="tick">'
                f"{xmax:.3g}</text>"
                f'<text x="{pad - 4}" y="18" text-anchor="end" class="tick">{ymax:.3g}</text>')
    return Markup(f'<svg class="plot square" viewBox="0 0 {size} {size}" role="img" '
                  f'aria-label="{escape(label)}" xmlns="http://www.w3.org/2000/svg">'
                  f'{"".join(body)}</svg>')


def judge_scatter(analysis: Analysis) -> Plot:
    """The first two judges' totals per artifact, with their rank agreement."""
    title = "Judge against judge"
    judges = list(analysis.judges.items())
    if len(judges) < 2:
        return Plot("judges", title, "", missing="needs two judges")
    (la, a), (lb, b) = judges[:2]
    both = np.isfinite(a.total) & np.isfinite(b.total) & ~a.gated
    points = [(float(a.total[c, t]), float(b.total[c, t]), c) for c, t in zip(*np.nonzero(both),
                                                                               strict=True)]
    if not points:
        return Plot("judges", title, "", missing="no artifact both judges scored")
    agreement = analysis.table("judge_agreement")
    row = next((r for r in (agreement.rows if agreement else [])
                if r.get("judges") == f"{la} vs {lb}"), {})
    numbers = ", ".join(
        f"{name} {value:.3f}" for name, key in (("Pearson r", "pearson_artifacts"),
                                                ("Spearman ρ", "spearman_artifacts"),
                                                ("Kendall τ-b of the means", "kendall"))
        if isinstance(value := row.get(key), float) and math.isfinite(value))
    svg = _scatter(points, a.full_marks or 100, b.full_marks or 100, la, lb, title, True)
    numbers = numbers or "too few for agreement numbers"
    caption = f"{len(points)} artifacts (gate failures left out); {numbers}."
    return Plot("judges", title, caption, svg)


def cost_score(analysis: Analysis) -> Plot:
    """Each attempt's cost against its total under the main judge."""
    title = "Cost against score"
    scores = analysis.context.scores
    if scores is None:
        return Plot("cost", title, "", missing="no judgments yet")
    data = analysis.data
    points = []
    for c, config in enumerate(scores.configs):
        for t, task in enumerate(scores.tasks):
            outcome = data.outcomes.get((task, config))
            total = scores.total[c, t]
            if outcome is not None and outcome.attempt.cost_usd is not None and np.isfinite(total):
                points.append((float(outcome.attempt.cost_usd), float(total), c))
    if not points:
        return Plot("cost", title, "", missing="no attempt with a known cost and a score")
    if not any(p[0] for p in points):
        return Plot("cost", title, "", missing=f"no cost recorded: all {len(points)} scored "
                    "attempts cost $0 (model-free baselines, or calls without a price)")
    xmax = max(p[0] for p in points) * 1.1
    svg = _scatter(points, xmax, scores.full_marks or 100, "cost (USD)",
                   f"total ({analysis.primary})", title, False)
    return Plot("cost", title, f"{len(points)} attempts, coloured by configuration "
                "(the colours of the distribution plot).", svg)


def plots(analysis: Analysis) -> list[Plot]:
    """Every plot of the summary page, in page order."""
    return [distributions(analysis), effects(analysis), judge_scatter(analysis),
            cost_score(analysis)]
