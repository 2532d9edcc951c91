"""Registers the ``figure-to-slide`` task family (ReFigBench); its logic loads on selection."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from refig.plugin import Deliverable, InputSpec, TaskFamilyRecord, hookimpl

from refig_family_figure_to_slide.demo import DEMO

FIGURE_TO_SLIDE = "figure-to-slide"

RUBRIC = Path(__file__).parent / "rubrics" / "refigbench-v1.toml"


def _family(**options: Any) -> Any:
    from refig_family_figure_to_slide.family import FigureToSlide

    return FigureToSlide(**options)


def _viewer() -> Any:
    from refig_family_figure_to_slide.view import VIEW

    return VIEW


def _canary() -> Any:
    from refig_command_canary import GoldenDocument, GoldenSet
    from refig_toolkit_pptx import golden

    return GoldenSet(name="slides", folder=golden.FOLDER, renderer="libreoffice",
                     documents=(GoldenDocument(golden.DECK, golden.CASES, pages="all"),),
                     options={"width": golden.WIDTH}, fonts=golden.FONTS)


@hookimpl
def refig_task_families() -> Iterator[TaskFamilyRecord]:
    yield TaskFamilyRecord(
        name=FIGURE_TO_SLIDE,
        description="ReFigBench: rebuild a raster figure as one natively editable PowerPoint "
        "slide, scored for fidelity and editability (flattening capped).",
        factory=_family,
        inputs=(
            InputSpec("figure", visible=True, description="the raster figure to rebuild"),
            InputSpec("annotation", visible=False, required=False,
                      description="nodes, edges and labels of the figure (generated suites)"),
        ),
        deliverables=(
            Deliverable("slide", "slide.pptx", primary=True),
            Deliverable("program", "build_slide.py", required=False),
        ),
        renderer="libreoffice",
        metrics=("connector-audit", "flattening", "text", "topology", "image"),
        judges=("metrics",),
        rubric=RUBRIC,
        demo=DEMO,
        viewer=_viewer,
        canary=_canary,
    )
