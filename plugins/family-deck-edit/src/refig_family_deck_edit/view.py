"""The deck-edit panel of the HTML task pages (``refig view``, ``refig report --html``),
given to the viewer by the family's record (``viewer``): the structural diff's verdicts,
original, target and edited renderings side by side for each slide chosen for the VQ judge, the
edit probes of the edited slides (``edit-probes`` values, when measured), and every slide of the
three decks, hidden ones marked.

What decides the verdict leads the page, large (``lead``): the numbers, the achieved, missed and
collateral changes (open), and the changed slides as original | target | edited at a third of
the page's width each; then each probe's verdict and its slide before and after the edit; every
slide of each deck is folded away."""

from __future__ import annotations

from typing import Any

from refig_toolkit_analysis import format_number, probe_blocks

FAMILY = "deck-edit"
KEY_METRICS = (
    ("deck-diff", "edit_recall", "edit recall"),
    ("deck-diff", "edit_precision", "edit precision"),
    ("deck-diff", "collateral", "collateral"),
    ("deck-diff", "oracle_if", "oracle IF"),
)
TITLE = "Deck edit"
#: The decks in the order the panel shows them, and what it calls each.
ROLES = (("original", "original"), ("target", "target"), ("prediction", "edited"))

Block = dict[str, Any]


def _value(found: Any, name: str) -> Any:
    return found.metrics.get(("deck-diff", name))


def _label(deck: str, number: int, hidden: dict[str, list[bool]], role: str) -> str:
    flags = hidden.get(role, [])
    mark = " (hidden)" if 0 < number <= len(flags) and flags[number - 1] else ""
    return f"{deck} slide {number}{mark}"


def _diff_blocks(found: Any) -> list[Block]:
    """The numbers, then achieved / missed / collateral changes with slide and object."""
    blocks: list[Block] = []
    rows = []
    for _, name, label in KEY_METRICS:
        value = _value(found, name)
        if value is not None:
            rows.append([label, format_number(value.value)])
    if rows:
        blocks.append({"kind": "pairs", "title": "Structural diff", "rows": rows, "lead": True})
    recall, collateral = _value(found, "edit_recall"), _value(found, "collateral")
    verdicts = []
    for value, key, verdict in ((recall, "achieved", "achieved"), (recall, "missed", "missed"),
                                (collateral, "changes", "collateral")):
        for line in (value.detail.get(key, []) if value is not None else []):
            verdicts.append([verdict, line])
    if verdicts:
        blocks.append({"kind": "table", "title": "Requested and done changes",
                       "columns": ["verdict", "change"], "rows": verdicts, "lead": True,
                       "open": True})
    return blocks


def _slide_blocks(found: Any) -> list[Block]:
    """Each selected slide as original | target | edited, then every slide of each deck."""
    selected = _value(found, "selected_slides")
    detail = selected.detail if selected is not None else {}
    chosen = detail.get("slides", [])
    pages: dict[str, list[str]] = dict(detail.get("pages") or {})
    hidden: dict[str, list[bool]] = detail.get("hidden") or {}
    if not pages.get("prediction") and found.pages:  # values measured before pages were kept
        pages["prediction"] = [page.sha256 for page in found.pages]
    blocks: list[Block] = []
    if chosen:
        blocks.append({"kind": "table", "title": "Slides chosen for the VQ judge",
                       "columns": ["original", "target", "edited", "why", "SSIM target",
                                   "SSIM edited"],
                       "rows": [[str(s.get(k) or "—") for k in
                                 ("original", "target", "prediction", "reasons", "ssim_target",
                                  "ssim_prediction")] for s in chosen]})
    for slide in chosen:
        items = []
        for role, deck in ROLES:
            number, shas = slide.get(role), pages.get(role, [])
            if number is not None and 0 < number <= len(shas):
                items.append({"label": _label(deck, number, hidden, role),
                              "sha256": shas[number - 1]})
        if items:
            where = ", ".join(f"{deck} {slide[role]}" for role, deck in ROLES
                              if slide.get(role) is not None)
            blocks.append({"kind": "images", "title": f"Selected: {where} ({slide['reasons']})",
                           "items": items, "lead": True, "large": True})
    for role, deck in ROLES:
        shas = pages.get(role, [])
        if shas:
            blocks.append({"kind": "images", "title": f"Every slide of the {deck} deck",
                           "items": [{"label": _label(deck, i + 1, hidden, role), "sha256": sha}
                                     for i, sha in enumerate(shas)], "folded": True})
    return blocks


def panel(found: Any) -> list[Block]:
    """The diff's verdicts, the selected slides side by side, the edit probes on the edited
    slides when they were measured (each probe's verdict, before and after), every slide of
    every deck."""
    blocks = _diff_blocks(found) + _slide_blocks(found)
    probes = probe_blocks(found.metrics.get(("edit-probes", "probe_score")))
    if not blocks and not probes:
        return [{"kind": "note", "text": "no deck metrics stored yet"}]
    folded = [block for block in blocks if block.get("folded")]
    return [block for block in blocks if not block.get("folded")] + probes + folded


class _View:
    family = FAMILY
    key_metrics = KEY_METRICS
    title = TITLE

    @staticmethod
    def panel(found: Any) -> list[Block]:
        return panel(found)


VIEW = _View()
