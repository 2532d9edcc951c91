"""The sample list: one row per task x configuration, as JSON for the page's table.

A row holds what a researcher sorts and filters by: status (a failed attempt's typed reason, the
gate's reason), each judge's total and axes, the family's key metrics, turns, tokens, cost, wall
time, category and tier, and the hashes of the thumbnails (source and result).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from refig_toolkit_analysis import Context, Outcome

from refig_reporter_html.fields import family_of, pages, source_sha, task_meta
from refig_reporter_html.panels import panels
from refig_reporter_html.slugs import slug


def status_of(outcome: Outcome) -> tuple[str, str]:
    """``(status, reason)``: infrastructure (the provider's or set-up's failure, by its error
    kind), failed (the model's: the attempt's error kind), gated (the gate's reason), pending
    (not evaluated yet) or passed."""
    if outcome.failure is not None:
        return "infrastructure" if outcome.infrastructure else "failed", outcome.failure.kind
    if outcome.gated:
        return "gated", outcome.gate_reason or ""
    if not outcome.evaluated:
        return "pending", "not evaluated yet"
    return "passed", ""


def _number(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else round(float(value), 4)


def sample_rows(ctx: Context) -> dict[str, Any]:
    """Every row and the facets the filters offer, as one JSON-ready document."""
    data = ctx.data
    registry = panels()
    judges = ctx.judges
    rows = []
    for (task_id, config_id), outcome in sorted(data.outcomes.items()):
        task = data.tasks.get(task_id)
        family = family_of(task)
        status, reason = status_of(outcome)
        attempt = outcome.attempt
        scores: dict[str, Any] = {}
        for label, js in judges.items():
            c, t = js.config_index(config_id), js.task_index(task_id)
            axes = {a: _number(v) for a, v in zip(js.axes, js.axis_points[c, t], strict=True)}
            total = js.total[c, t]
            if np.isfinite(total):
                scores[label] = {"total": _number(total), "axes": axes, "full": js.full_marks}
        metrics = {
            label: _number(outcome.metric(metric, name))
            for metric, name, label in registry.view(family).key_metrics
        }
        shown = pages(data.render(outcome.artifact, outcome.task_id))
        rows.append({
            "href": f"tasks/{slug(task_id)}.html#{slug(config_id)}",
            "anchor": slug(config_id),
            "task": task_id,
            "config": config_id,
            "family": family,
            "category": task_meta(task, "category"),
            "tier": task_meta(task, "tier"),
            "status": status,
            "reason": reason,
            "detail": (outcome.gate_detail
                       or (attempt.error.message if attempt.error else ""))[:300],
            "try": attempt.try_index,
            "scores": scores,
            "metrics": metrics,
            "turns": attempt.turns,
            "tokens": attempt.usage.input_tokens + attempt.usage.output_tokens,
            "cost": _number(attempt.cost_usd),
            "wall": _number(attempt.wall_seconds),
            "source": source_sha(task),
            "result": shown[0].sha256 if shown else None,
        })
    metric_labels = sorted({k for r in rows for k in r["metrics"]})
    return {
        "rows": rows,
        "judges": {label: list(js.axes) for label, js in judges.items()},
        "primary": ctx.primary,
        "metrics": metric_labels,
        "facets": {
            key: sorted({str(r[key]) for r in rows if r[key] is not None})
            for key in ("config", "status", "category", "tier", "family")
        },
    }
