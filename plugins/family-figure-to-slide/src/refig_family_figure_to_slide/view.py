"""The figure-to-slide panel of the HTML task pages (``refig view``, ``refig report --html``),
given to the viewer by the family's record (``viewer``): the slide's object audit and the edit
probes, and the sample list's columns."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from refig_toolkit_analysis import probe_blocks
from refig_toolkit_pptx import ObjectTree

Block = dict[str, Any]
KEY_METRICS = (
    ("connector-audit", "connector_count", "connectors"),
    ("flattening", "flattened", "flattened"),
    ("text", "recall", "text recall"),
    ("image", "ssim", "SSIM"),
)


def _object_tree(inspection: Any) -> ObjectTree | None:
    """A slide's object tree, parsed from the inspection (None when absent or not a tree)."""
    if inspection is None:
        return None
    try:
        return inspection.parsed(ObjectTree)
    except ValueError:
        return None


def _slide_panel(found: Any) -> list[Block]:
    """The object audit: counts by kind, then every object with its text and wiring."""
    tree = _object_tree(found.outcome.inspection)
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


def panel(found: Any) -> list[Block]:
    """The object audit, then the edit probes when they were measured (``found`` is the
    viewer's ``PanelInput``)."""
    return _slide_panel(found) + probe_blocks(found.metrics.get(("edit-probes", "probe_score")))


VIEW = SimpleNamespace(family="figure-to-slide", key_metrics=KEY_METRICS, title="Slide",
                       panel=panel)
