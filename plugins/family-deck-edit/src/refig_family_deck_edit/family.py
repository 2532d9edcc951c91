"""The deck-edit family: an edited multi-slide deck, compared with its original and target.

Gate: opens within limits, holds at least one slide, renders. Structure: the whole-deck read of
:mod:`.inspect_deck`. Realiser: LibreOffice, every slide, hidden ones exported. A judge sees the
selected slides (original, target, edited) and the structural diffs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from refig.plugin import (
    Artifact,
    Evidence,
    GateResult,
    Render,
    RenderJob,
    Task,
    TaskFamily,
    stable_hash,
)

from refig_family_deck_edit.cases import DECK, TARGET
from refig_family_deck_edit.compare import readable
from refig_family_deck_edit.context import (
    ContextError,
    artifact_context,
    as_structure,
    build_context,
)
from refig_family_deck_edit.inspect_deck import INSPECTOR, inspect_deck
from refig_family_deck_edit.judges.evidence import selected, slide_images
from refig_family_deck_edit.reader import fold_render
from refig_family_deck_edit.references import RenderError
from refig_family_deck_edit.structure import DeckStructure


def reference_key(task: Task) -> str:
    """Values are measured against the original and the target together."""
    original, target = task.input(DECK), task.input(TARGET)
    return stable_hash({"deck": original.sha256 if original else None,
                        "target": target.sha256 if target else None})


class DeckEdit(TaskFamily):
    """The :class:`refig.plugin.TaskFamily` of PPTArena."""

    inspector = INSPECTOR
    #: Gate reasons meaning "not a deck at all" (`refig check` exits 1 on them).
    unreadable_reasons = frozenset({"missing", "not_a_zip"})
    #: Rendered once per content and stored in the run, for the metric, judges and task pages.
    rendered_inputs = (DECK, TARGET)

    def reference_key(self, task: Task) -> str:
        return reference_key(task)

    def inspect(self, path: Path, task: Task | None) -> tuple[GateResult, DeckStructure | None]:
        """The deck gate's structural half and the whole-deck structure."""
        verdict = inspect_deck(path)
        gate = GateResult(passed=verdict.passed, reason=verdict.reason, detail=verdict.detail,
                          slides=verdict.slides)
        return gate, verdict.structure

    def render_job(self, artifact_path: Path, task: Task | None) -> RenderJob:
        """Every slide, hidden ones too: a hidden slide the agent edited is still judged."""
        return RenderJob(artifact_path, pages="all", task=task, hidden=True)

    def fold_gate(self, gate: GateResult, render: Render | None) -> GateResult:
        """A structural pass fails when the deck did not render."""
        rendered = render is not None and bool(render.pages)
        folded = fold_render(gate, render.error if render else None, rendered=rendered)
        return folded if folded.passed else folded.model_copy(update={"slides": gate.slides})

    def evidence(self, artifact: Artifact) -> Evidence:
        """The selected slides (original, target, edited) and the structural diffs."""
        try:
            context = artifact_context(artifact)
        except (ContextError, RenderError, OSError, ValueError) as exc:
            return Evidence(text=f"(no structural diff: {exc})", text_label="Structural diffs")
        images = slide_images(context, selected(context), ("original", "target", "prediction"))
        return Evidence(images=images, text=readable(context.comparison),
                        text_label="Structural diffs, read from the decks' XML")

    def rating_page(self, artifact: Artifact) -> Any:
        """What an expert rating the edit sees (``refig annotate --rate``)."""
        from refig_family_deck_edit.rating_page import rating_page

        return rating_page(artifact)

    def check_row(self, artifact: Artifact) -> dict[str, Any]:
        """``refig check --json``: the gate, the deck's shape and, with references, the diff."""
        structure = as_structure(artifact.structure)
        row: dict[str, Any] = {
            "file": str(artifact.path), "passed": artifact.gate.passed,
            "reason": artifact.gate.reason, "detail": artifact.gate.detail,
            "slides": len(structure.slides) if structure else artifact.gate.slides,
            "hidden_slides": sum(s.hidden for s in structure.slides) if structure else None,
            "objects": structure.object_count if structure else None,
            "external_links": ([link.model_dump() for link in structure.external_links]
                               if structure else None),
        }
        if structure is not None and artifact.references.get(TARGET):
            try:
                c = build_context(structure, artifact.references).comparison
                row |= {"edit_recall": c.recall, "edit_precision": c.precision,
                        "collateral": c.collateral_count}
            except (ContextError, OSError, ValueError) as exc:
                row["diff_error"] = str(exc)
        return row

    def report_sections(self) -> Sequence[Any]:
        from refig_family_deck_edit.report.sections import SECTIONS

        return SECTIONS

    def papers(self) -> Sequence[Any]:
        """PPTArena's tables (``--paper pptarena``)."""
        from refig_family_deck_edit.report.paper import PPTARENA

        return (PPTARENA,)

    def structure_model(self) -> type[DeckStructure]:
        return DeckStructure
