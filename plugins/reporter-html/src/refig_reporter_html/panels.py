"""Family panels: what a task page shows that only one task family knows about, and which metrics
the sample list puts in its columns.

A panel is a function from :class:`PanelInput` to a list of blocks, plain dicts the template
draws (and escapes): ``{"kind": "pairs", "title", "rows": [[label, value], ...]}``, ``{"kind":
"table", "title", "columns", "rows"}``, ``{"kind": "code", "title", "text"}``, ``{"kind":
"images", "title", "items": [{"label", "sha256"}]}``, ``{"kind": "note", "text"}``. A family
contributes its own without importing this package: its record's ``viewer`` returns an object
with the attributes of :class:`FamilyView` (``key_metrics``, ``panel``, ``title``); a family
without one gets the generic panel of its metric values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from refig.plugin import MetricValue, Task, TaskFamilyRecord, err, installed_records
from refig_toolkit_analysis import Outcome, format_number

from refig_reporter_html.fields import PageImage


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


@dataclass
class Panels:
    """The family views in force: those the installed families' records give."""

    views: dict[str, FamilyView] = field(default_factory=dict)

    def view(self, family: str) -> FamilyView:
        return self.views.get(family) or FamilyView(family, (), _generic_panel, family)


def _generic_panel(found: PanelInput) -> list[Block]:
    rows = [[f"{metric}/{name}", format_number(value.value)]
            for (metric, name), value in sorted(found.metrics.items())]
    return [{"kind": "pairs", "title": "Metrics", "rows": rows}] if rows else []


@cache
def panels() -> Panels:
    """The views of the installed families that declare one (a broken one is skipped)."""
    views = {}
    for record in installed_records("family"):
        if not isinstance(record, TaskFamilyRecord) or record.viewer is None:
            continue
        try:
            found = record.viewer()
            view = FamilyView(record.name, tuple(found.key_metrics), found.panel,
                              str(found.title or record.name))
        except Exception as exc:  # a plugin's bug must not take the viewer down
            err.print(f"viewer panel of {record.name!r} skipped: {type(exc).__name__}: {exc}")
            continue
        views[view.family] = view
    return Panels(views)
