"""The deck-edit panel of the HTML task pages (``refig view``, ``refig report --html``),
contributed through the viewer's ``refig.viewer`` entry point: the structural diff's verdicts and
the edited deck's selected slides, from the ``deck`` metric values."""

from __future__ import annotations

from typing import Any

FAMILY = "deck-edit"
KEY_METRICS = (
    ("deck-diff", "edit_recall", "edit recall"),
    ("deck-diff", "edit_precision", "edit precision"),
    ("deck-diff", "collateral", "collateral"),
    ("deck-diff", "oracle_if", "oracle IF"),
)
TITLE = "Deck edit"


def _value(found: Any, name: str) -> Any:
    return found.metrics.get(("deck-diff", name))


def panel(found: Any) -> list[dict[str, Any]]:
    """Blocks: the numbers, achieved / missed / collateral changes, the selected slides."""
    blocks: list[dict[str, Any]] = []
    rows = []
    for _, name, label in KEY_METRICS:
        value = _value(found, name)
        if value is not None:
            rows.append([label, "—" if value.value is None else f"{value.value:.3g}"])
    if rows:
        blocks.append({"kind": "pairs", "title": "Structural diff", "rows": rows})
    recall, collateral = _value(found, "edit_recall"), _value(found, "collateral")
    verdicts = []
    for value, key, verdict in ((recall, "achieved", "achieved"), (recall, "missed", "missed"),
                                (collateral, "changes", "collateral")):
        for line in (value.detail.get(key, []) if value is not None else []):
            verdicts.append([verdict, line])
    if verdicts:
        blocks.append({"kind": "table", "title": "Requested and done changes",
                       "columns": ["verdict", "change"], "rows": verdicts})
    selected = _value(found, "selected_slides")
    chosen = selected.detail.get("slides", []) if selected is not None else []
    numbers = {s["prediction"] for s in chosen if s.get("prediction")}
    if chosen:
        blocks.append({"kind": "table", "title": "Slides chosen for the VQ judge",
                       "columns": ["original", "target", "edited", "why", "SSIM target",
                                   "SSIM edited"],
                       "rows": [[str(s.get(k) or "—") for k in
                                 ("original", "target", "prediction", "reasons", "ssim_target",
                                  "ssim_prediction")] for s in chosen]})
    if found.pages:
        items = [{"label": f"edited slide {i + 1}", "sha256": page.sha256}
                 for i, page in enumerate(found.pages) if not numbers or i + 1 in numbers]
        blocks.append({"kind": "images", "title": "Edited slides (selected)", "items": items})
    return blocks or [{"kind": "note", "text": "no deck metrics stored yet"}]


class _View:
    family = FAMILY
    key_metrics = KEY_METRICS
    title = TITLE

    @staticmethod
    def panel(found: Any) -> list[dict[str, Any]]:
        return panel(found)


VIEW = _View()
