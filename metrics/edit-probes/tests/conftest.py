"""Slides that look alike and differ in editability, built from the metrics' generated figure."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from pptx.enum.shapes import MSO_SHAPE, MSO_SHAPE_TYPE
from pptx.oxml.ns import qn
from pptx.slide import Slide
from pptx.util import Emu, Pt

#: The styles, most editable first as a person would rank them (the table's cells are no shapes).
STYLES = ("glued", "grouped", "touching", "text_over_boxes", "picture_under_labels", "table_grid")


def node_shapes(slide: Slide) -> list:
    """The figure's labelled rounded rectangles."""
    return [
        s
        for s in slide.shapes
        if s.shape_type == MSO_SHAPE_TYPE.AUTO_SHAPE
        and s.text_frame.text
        and s.auto_shape_type == MSO_SHAPE.ROUNDED_RECTANGLE
    ]


def unglue(slide: Slide) -> None:
    """Lines that only touch the boxes: the connectors keep their places, their glue goes."""
    for connector in slide.shapes._spTree.iter(qn("p:cxnSp")):
        props = connector.find(qn("p:nvCxnSpPr")).find(qn("p:cNvCxnSpPr"))
        for end in ("a:stCxn", "a:endCxn"):
            for glue in props.findall(qn(end)):
                props.remove(glue)


def label_over(slide: Slide, shape, text: str) -> None:
    """A text box with ``text`` over where ``shape`` is."""
    box = slide.shapes.add_textbox(shape.left, shape.top, shape.width, shape.height)
    frame = box.text_frame
    frame.word_wrap = True
    frame.text = text
    frame.paragraphs[0].runs[0].font.size = Pt(20)
    frame.paragraphs[0].alignment = 2  # centred


def build(kit: ModuleType, style: str, path: Path, render: Callable[..., list[Path]]) -> Path:
    """One look-alike slide of ``style`` at ``path``."""
    prs, slide = kit.new_slide()
    if style == "table_grid":
        frame = slide.shapes.add_table(
            2, 3, Emu(2_000_000), Emu(1_500_000), Emu(8_000_000), Emu(3_500_000)
        )
        for i, label in enumerate(kit.LABELS):
            frame.table.cell(i // 3, i % 3).text = label
        return kit.save(prs, path)
    kit.add_native_figure(slide)
    if style == "touching":
        unglue(slide)
    elif style == "grouped":
        slide.shapes.add_group_shape(
            [s for s in slide.shapes if s.has_text_frame is False or s in node_shapes(slide)]
        )
    elif style == "text_over_boxes":
        for shape in node_shapes(slide):
            text = shape.text_frame.text
            shape.text_frame.text = ""
            label_over(slide, shape, text)
    elif style == "picture_under_labels":
        # The drawing (boxes, arrows, title) as a picture; the node labels as native text on it.
        labels = [(shape, shape.text_frame.text) for shape in node_shapes(slide)]
        for shape, _ in labels:
            shape.text_frame.text = ""
        drawing = kit.save(prs, path.with_name(path.stem + "-drawing.pptx"))
        [png] = render(drawing)
        prs, slide = kit.new_slide()
        slide.shapes.add_picture(str(png), 0, 0, Emu(kit.SLIDE_W), Emu(kit.SLIDE_H))
        for shape, text in labels:
            label_over(slide, shape, text)
    elif style != "glued":
        raise ValueError(style)
    return kit.save(prs, path)


@pytest.fixture(scope="session")
def lookalikes(
    kit: ModuleType, render, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Path]:
    """Every style's slide, by style."""
    folder = tmp_path_factory.mktemp("lookalikes")
    return {style: build(kit, style, folder / f"{style}.pptx", render) for style in STYLES}


@pytest.fixture(scope="session")
def builders() -> ModuleType:
    """This module, for tests that build a style of their own."""
    return sys.modules[__name__]


@pytest.fixture(scope="session")
def probe_metric() -> Iterator[Any]:
    """One metric for the session: its probe decks' renderer stays warm, then is closed."""
    from refig_metric_edit_probes.metric import EditProbes

    metric = EditProbes()
    yield metric
    metric.close()


@pytest.fixture(scope="session", autouse=True)
def close_renderers() -> Iterator[None]:
    """The program realiser the code probes use is this process's; close it at the end."""
    yield
    from refig.engine.plugins import close_plugins

    close_plugins()
