"""The ``edit-probes`` metric's report table, which every family the metric serves adds as its
``probes`` section (figure-to-slide beside its flattening share, figure-to-code beside raster
smuggling, deck-edit alone), and the blocks its task pages show of one artifact's probes."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from refig_toolkit_analysis.analysis.context import (
    EDITABILITY_HINTS,
    MIN_PAIRED_TASKS,
    MIN_TASKS_FOR_INTERVAL,
    Context,
)
from refig_toolkit_analysis.analysis.registry import SectionBuilder
from refig_toolkit_analysis.analysis.tables import Cell, Column, Estimate, Table, format_number
from refig_toolkit_analysis.stats import Interval, bootstrap_ci, rank_agreement

EDIT_PROBES = "edit-probes"
PROBE_SCORE = "probe_score"

Block = dict[str, Any]
#: A 0/1 metric shown beside the probes as the share of artifacts where it is 1:
#: (metric, value name, column label).
Flag = tuple[str, str, str]


def mean_estimate(values: Sequence[float]) -> Estimate | None:
    """The mean with its 95% bootstrap interval over the values (none under
    :data:`MIN_TASKS_FOR_INTERVAL`, as every mean of the report)."""
    if not values:
        return None
    if len(values) < MIN_TASKS_FOR_INTERVAL:
        return Estimate(float(np.mean(values)))
    ci = bootstrap_ci(np.asarray(values, dtype=float))  # one column: one interval
    assert isinstance(ci, Interval)
    return Estimate(ci.estimate, ci.low, ci.high)


def _probe_names(details: Sequence[Mapping[str, Any]]) -> list[str]:
    """The probes named in the values' details, in the order they first appear."""
    return list(dict.fromkeys(p["probe"] for d in details for p in d.get("probes", [])))


def _pass_rate(details: Sequence[Mapping[str, Any]], probe: str) -> float | None:
    """Of the artifacts where ``probe`` applied and was measured, the share it passed."""
    found = [p["passed"] for d in details for p in d.get("probes", [])
             if p["probe"] == probe and p.get("applicable") and p.get("passed") is not None]
    return float(np.mean(found)) if found else None


def probes_section(flags: Sequence[Flag] = (), what: str = "") -> SectionBuilder:
    """The ``probes`` section: per configuration the mean probe score with its interval, each
    probe's pass rate, the ``flags``' shares, and the judge's editability axis (a share of its
    maximum) when the rubric has one, with their rank correlation across (task, configuration)
    pairs. ``what`` names the family's probes in the description."""

    def probes(ctx: Context) -> Iterator[Table]:
        yield probes_table(ctx, flags, what)

    return probes


def probes_table(ctx: Context, flags: Sequence[Flag] = (), what: str = "") -> Table:
    """The table :func:`probes_section` yields."""
    data, scores = ctx.data, ctx.scores
    edit = scores.axis_index(*EDITABILITY_HINTS) if scores is not None else None
    found = {cid: {t: o for (t, c), o in data.outcomes.items() if c == cid and o.passed}
             for cid in data.config_order}
    details = {cid: [kept.detail for o in outcomes.values()
                     if (kept := o.values.get((EDIT_PROBES, PROBE_SCORE))) is not None]
               for cid, outcomes in found.items()}
    names = _probe_names([d for ds in details.values() for d in ds])
    columns = [Column("config", "configuration"), Column("probed", "probed", "int"),
               Column("probe_score", "probe score", "estimate", 2, best="max")]
    columns += [Column(f"pass_{name}", f"{name} passed", "pct", best="max") for name in names]
    columns += [Column(name, label, "pct", best="min") for _, name, label in flags]
    if scores is not None and edit is not None:
        columns.append(
            Column("editability", f"{scores.axes[edit]} (share)", "estimate", 2, best="max"))
    rows: list[dict[str, Cell]] = []
    pairs: list[tuple[float, float]] = []
    for config_id, outcomes in found.items():
        scored = {t: v for t, o in outcomes.items()
                  if (v := o.metric(EDIT_PROBES, PROBE_SCORE)) is not None}
        row: dict[str, Cell] = {"config": config_id, "probed": len(scored),
                                "probe_score": mean_estimate(list(scored.values()))}
        for name in names:
            row[f"pass_{name}"] = _pass_rate(details[config_id], name)
        for metric, name, _ in flags:
            shown = [v for o in outcomes.values() if (v := o.metric(metric, name)) is not None]
            row[name] = float(np.mean([v != 0 for v in shown])) if shown else None
        if scores is not None and edit is not None:
            c = scores.config_index(config_id)
            shares = scores.axis_points[c, :, edit] / scores.max_points[edit]
            row["editability"] = mean_estimate([float(v) for v in shares if np.isfinite(v)])
            for task_id, value in scored.items():
                if task_id in scores.tasks:
                    share = shares[scores.task_index(task_id)]
                    if np.isfinite(share):
                        pairs.append((value, float(share)))
        rows.append(row)
    beside = ", ".join(label for _, _, label in flags)
    table = Table(
        "probes", "Edit probes", columns, rows,
        description=f"Share of the applicable edit probes ({what or ', '.join(names)}) an "
        "artifact passed, mean over artifacts with a probe score, 95% bootstrap interval; each "
        "probe's pass rate where it applied"
        + (f"; beside them {beside}" if beside else "")
        + (" and the judge's editability axis." if edit is not None else "."),
    )
    if not any(row["probed"] for row in rows):
        table.insufficient = "no edit-probes values: run `refig evaluate RUN -m edit-probes`"
    elif scores is not None and edit is not None and len(pairs) >= MIN_PAIRED_TASKS:
        agreement = rank_agreement(*zip(*pairs, strict=True))
        table.notes.append(
            f"rank correlation of probe score and {scores.axes[edit]} across {agreement.n} "
            f"(task, configuration) pairs: Spearman {agreement.spearman:.3f}, "
            f"Kendall τ-b {agreement.kendall:.3f}")
    return table


def probe_verdict(probe: Mapping[str, Any]) -> str:
    """``passed``, ``failed`` or ``not measured``, with the reason and the numbers decided on."""
    passed = probe.get("passed")
    verdict = "not measured" if passed is None else "passed" if passed else "failed"
    numbers = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in probe.get("evidence", {}).items()
                        if isinstance(v, int | float) and not isinstance(v, bool)
                        and k not in ("node", "edges", "glued"))
    return "; ".join(p for p in (verdict, probe.get("reason", ""), numbers) if p)


def _where(probe: Mapping[str, Any], numbered: bool) -> str:
    slide = probe.get("slide")
    return f" (slide {slide + 1})" if numbered and slide is not None else ""


#: What a probe's "after" picture shows beyond its edit (the metric's drawing of it).
AFTER_NOTES = {"move": " (the node drawn hidden: its lines show where they went)"}


def probe_blocks(value: Any) -> list[Block]:
    """A task page's blocks of one artifact's probes (``value``: its ``probe_score``
    MetricValue, or None): each probe's verdict, then the slide before and after its edit (from
    the same conversion), so a reader sees why a slide is or is not editable. Slides are
    numbered when the probes ran on any but the first (a deck's edited slides)."""
    probes = value.detail.get("probes", []) if value is not None else []
    if not probes:
        return []
    numbered = any(p.get("slide") for p in probes)
    rows = [[p["probe"] + _where(p, numbered),
             probe_verdict(p) if p.get("applicable") else f"not applicable: {p.get('reason')}"]
            for p in probes]
    nodes = list(dict.fromkeys(p["evidence"]["text"] + _where(p, numbered) for p in probes
                               if p.get("evidence", {}).get("text")))
    title = f"Edit probes: score {format_number(value.value)}"
    if nodes:
        title += ", edits on " + ", ".join(f"“{node}”" for node in nodes)
    blocks: list[Block] = [{"kind": "pairs", "title": title, "rows": rows}]
    for probe in probes:
        renders = probe.get("renders") or {}
        if renders:
            name = probe["probe"] + _where(probe, numbered)
            blocks.append({"kind": "images", "title": f"{name}: {probe_verdict(probe)}",
                           "items": [{"label": f"{role} the {probe['probe']}"
                                      + (AFTER_NOTES.get(probe["probe"], "")
                                         if role == "after" else ""),
                                      "sha256": renders[role]}
                                     for role in ("before", "after") if role in renders]})
    return blocks
