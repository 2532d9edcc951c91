"""Family panels: what a task page shows that only one task family knows about, and which metrics
the sample list puts in its columns.

A panel is a function from :class:`PanelInput` to a list of blocks, plain dicts the template
draws (and escapes): ``{"kind": "pairs", "title", "rows": [[label, value], ...]}``, ``{"kind":
"table", "title", "columns", "rows"}``, ``{"kind": "code", "title", "text"}``, ``{"kind":
"images", "title", "items": [{"label", "sha256"}]}``, ``{"kind": "note", "text"}``. The built-in
family (figure-to-slide) is registered here; another family's plugin (deck-edit and
figure-to-code do) contributes one without importing this package, by an entry point in
group ``refig.viewer`` naming an object with the attributes of :class:`FamilyView`
(``family``, ``key_metrics``, ``panel``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib.metadata import entry_points
from typing import Any

from refig.plugin import MetricValue, Task, err
from refig_toolkit_analysis import Outcome, format_number

from refig_reporter_html.fields import PageImage, object_tree

ENTRY_POINT_GROUP = "refig.viewer"


@dataclass(frozen=True)
class PanelInput:
    """What a panel may read: the task, the outcome, its metric values and rendered pages, and a
    bounded, verified reader of the run's objects."""

    task: Task | None
    outcome: Outcome
    metrics: Mapping[tuple[str, str], MetricValue]
    pages: list[PageImage]
    log_sha256: str | None
    read_text: Callable[[str | None], str | None]


Block = dict[str, Any]


@dataclass(frozen=True)
class FamilyView:
    """A family's columns in the sample list (metric, name, label) and its task-page panel."""

    family: str
    key_metrics: tuple[tuple[str, str, str], ...]
    panel: Callable[[PanelInput], list[Block]]
    title: str = ""


def _metric_rows(found: PanelInput, prefixes: tuple[str, ...] = ()) -> list[list[str]]:
    return [
        [f"{metric}/{name}", format_number(value.value)]
        for (metric, name), value in sorted(found.metrics.items())
        if not prefixes or metric.startswith(prefixes)
    ]


def _slide_panel(found: PanelInput) -> list[Block]:
    """The object audit: counts by kind, then every object with its text and wiring."""
    tree = object_tree(found.outcome.inspection)
    if tree is None:
        why = ("no slide was produced" if found.outcome.artifact is None else
               "not inspected yet" if found.outcome.inspection is None else
               "no object tree (the slide did not open)")
        return [{"kind": "note", "text": why}]
    found = tree.counts()
    counts = [[kind.replace("_", " "), str(n)] for kind, n in found.items()
              if n or (kind == "bound_connectors" and found["connectors"])]
    if tree.background_image_sha256:
        counts.append(["background picture", "1"])
    rows = []
    for obj in tree.walk():
        flags = [f for f, on in (("hidden", obj.hidden), ("alternate content",
                 obj.in_alternate_content), ("picture fill", obj.image_fill),
                 (obj.layer, obj.layer != "slide")) if on]
        wiring = ""
        if obj.start is not None or obj.end is not None:
            ends = [f"{e.shape_id}:{e.site}" if e else "free" for e in (obj.start, obj.end)]
            wiring = " → ".join(ends)
        rows.append([str(obj.id if obj.id is not None else ""), obj.kind.value, obj.name,
                     obj.text[:200], obj.geometry or "", wiring, ", ".join(flags)])
    return [
        {"kind": "pairs", "title": "Object audit", "rows": counts},
        {"kind": "table", "title": f"Objects ({len(rows)})",
         "columns": ["id", "kind", "name", "text", "geometry", "connects", "flags"],
         "rows": rows},
    ]


def _probe_verdict(probe: Mapping[str, Any]) -> str:
    """``passed``, ``failed`` or ``not measured``, with the reason and the numbers decided on."""
    verdict = {True: "passed", False: "failed"}.get(probe.get("passed"), "not measured")
    numbers = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in probe.get("evidence", {}).items()
                        if isinstance(v, int | float) and k not in ("node", "edges", "glued"))
    return "; ".join(p for p in (verdict, probe.get("reason", ""), numbers) if p)


def _probe_blocks(found: PanelInput) -> list[Block]:
    """The edit probes: each one's verdict, then the slide before and after its edit (from the
    same conversion), so a reader sees why a slide is or is not editable."""
    value = found.metrics.get(("edit-probes", "probe_score"))
    probes = value.detail.get("probes", []) if value is not None else []
    if not probes:
        return []
    rows = [[p["probe"] + (f" (slide {p['slide'] + 1})" if p.get("slide") else ""),
             _probe_verdict(p) if p.get("applicable") else f"not applicable: {p.get('reason')}"]
            for p in probes]
    node = next((p["evidence"] for p in probes if p.get("evidence", {}).get("text")), None)
    title = f"Edit probes: score {format_number(value.value)}"
    if node is not None:
        title += f", edits on “{node['text']}”"
    blocks: list[Block] = [{"kind": "pairs", "title": title, "rows": rows}]
    for probe in probes:
        renders = probe.get("renders") or {}
        if renders:
            blocks.append({"kind": "images", "title": f"{probe['probe']}: {_probe_verdict(probe)}",
                           "items": [{"label": f"{role} the {probe['probe']}",
                                      "sha256": renders[role]}
                                     for role in ("before", "after") if role in renders]})
    return blocks


def _figure_to_slide_panel(found: PanelInput) -> list[Block]:
    """The object audit, then the edit probes when they were measured."""
    return _slide_panel(found) + _probe_blocks(found)


BUILTIN: tuple[FamilyView, ...] = (
    FamilyView("figure-to-slide", (
        ("connector-audit", "connector_count", "connectors"),
        ("flattening", "flattened", "flattened"),
        ("text", "recall", "text recall"),
        ("image", "ssim", "SSIM"),
    ), _figure_to_slide_panel, "Slide"),
)


@dataclass
class Panels:
    """The family views in force: the built-in ones, overridden by installed plugins'."""

    views: dict[str, FamilyView] = field(default_factory=dict)

    def view(self, family: str) -> FamilyView:
        return self.views.get(family) or FamilyView(family, (), _generic_panel, family)


def _generic_panel(found: PanelInput) -> list[Block]:
    rows = _metric_rows(found)
    return [{"kind": "pairs", "title": "Metrics", "rows": rows}] if rows else []


@cache
def panels() -> Panels:
    """Built-in views plus those of entry points in ``refig.viewer`` (a broken one is skipped)."""
    views = {v.family: v for v in BUILTIN}
    for point in entry_points(group=ENTRY_POINT_GROUP):
        try:
            found = point.load()
            view = FamilyView(str(found.family), tuple(found.key_metrics), found.panel,
                              str(getattr(found, "title", found.family)))
        except Exception as exc:  # a plugin's bug must not take the viewer down
            err.print(f"viewer panel {point.name!r} skipped: {type(exc).__name__}: {exc}")
            continue
        views[view.family] = view
    return Panels(views)
