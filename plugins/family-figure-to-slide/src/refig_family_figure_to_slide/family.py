"""The figure-to-slide family: one .pptx holding one slide, rebuilt from a raster figure.

The gate, object tree and audit come from :mod:`refig_toolkit_pptx`; the realiser is LibreOffice
(the first page); a judge sees the source figure, the slide's rendering and the compact object
audit.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from refig.plugin import Artifact, Evidence, GateResult, Render, RenderJob, Task, TaskFamily
from refig_toolkit_pptx import INSPECTOR, ObjectTree, fold_render, inspect_structure, object_tree

from refig_family_figure_to_slide.audit import object_audit
from refig_family_figure_to_slide.check import check_cells, check_row

if TYPE_CHECKING:  # the analysis toolkit loads numpy and scipy: only a report needs it
    from refig_toolkit_analysis import SectionBuilder


class FigureToSlide(TaskFamily):
    """The :class:`refig.plugin.TaskFamily` of ReFigBench."""

    inspector = INSPECTOR
    #: Gate reasons meaning the input is not a .pptx at all (``refig check`` exits 1 on them).
    unreadable_reasons = frozenset({"missing", "not_a_zip"})

    def reference_key(self, task: Task) -> str:
        """Metric values are measured against the source figure (its sha256)."""
        figure = task.input("figure")
        return figure.sha256 if figure is not None else ""

    def inspect(self, path: Path, task: Task | None) -> tuple[GateResult, ObjectTree | None]:
        """The one-slide gate (render pending) and the slide's object tree."""
        structure = inspect_structure(path)
        return structure.gate, structure.tree

    def render_job(self, artifact_path: Path, task: Task | None) -> RenderJob:
        """The slide's one page (rendered even when the slide is hidden)."""
        return RenderJob(artifact_path, pages="first", task=task, hidden=True)

    def fold_gate(self, gate: GateResult, render: Render | None) -> GateResult:
        """A structural pass fails when the rendering timed out or failed."""
        if render is None:
            return fold_render(gate, None, rendered=False)
        return fold_render(gate, render.error, rendered=render.png_sha256 is not None)

    def evidence(self, artifact: Artifact) -> Evidence:
        """The source figure, the slide's rendering, the object audit."""
        shown = (
            ("The source figure", artifact.source),
            ("The rendering of the agent's slide", artifact.render),
        )
        return Evidence(
            images=tuple((label, path) for label, path in shown if path is not None),
            missing=tuple(label for label, path in shown if path is None),
            text=object_audit(object_tree(artifact), artifact.metrics),
            text_label="The audit of the slide's objects, read from its XML",
        )

    def annotation_audit(self, artifact: Artifact, *, verdicts: bool = False) -> str:
        """What the annotation page shows under a slide: the audit's counts by kind, and its
        derived verdicts (pasted, flattened, text recall) only when ``verdicts`` asks."""
        return object_audit(object_tree(artifact), artifact.metrics, verdicts=verdicts)

    def check_row(self, artifact: Artifact) -> dict[str, Any]:
        """The documented ``refig check --json`` object of one slide."""
        return check_row(artifact)

    def check_cells(self, report: dict[str, Any]) -> dict[str, str]:
        """The ``refig check`` table's columns for one row."""
        return check_cells(report)

    def report_sections(self) -> Sequence[tuple[str, SectionBuilder]]:
        """The structural audit and the editability weight sensitivity."""
        from refig_family_figure_to_slide.sections import SECTIONS

        return SECTIONS

    def papers(self) -> Sequence[Any]:
        """ReFigBench's tables and figures (``--paper refigbench``)."""
        from refig_family_figure_to_slide.paper import REFIGBENCH

        return (REFIGBENCH,)

    def structure_model(self) -> type[ObjectTree]:
        return ObjectTree
