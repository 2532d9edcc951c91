"""The topology metric on real .pptx files (python-pptx) read by refig's own object-tree reader.

The slides rebuild generated sample figures the metric has never seen: faithfully, with every
arrow reversed, with arrows missing, and with unbound connectors, on a 16:9 slide at another scale.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from lxml import etree
from PIL import Image
from pptx import Presentation
from pptx.enum.dml import MSO_LINE_DASH_STYLE
from pptx.enum.shapes import MSO_CONNECTOR, MSO_SHAPE
from pptx.util import Emu, Inches
from refig_metric_topology.metric import TopologyMetric

sample = pytest.importorskip("refig_suite_sample")
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
SLIDE_W, SLIDE_H = 12_192_000, 6_858_000
SITES = {"top": 0, "left": 1, "bottom": 2, "right": 3}  # python-pptx rectangle sites


@pytest.fixture(scope="module")
def figures(tmp_path_factory):
    suite = sample.build_sample(tmp_path_factory.mktemp("sample"), n=3, seed=11, difficulty="hard")
    return [(task, suite.annotation(task)) for task in suite.tasks]


def _side(box, point) -> str:
    x0, y0, x1, y1 = box
    distances = {
        "left": abs(point[0] - x0),
        "right": abs(point[0] - x1),
        "top": abs(point[1] - y0),
        "bottom": abs(point[1] - y1),
    }
    return min(distances, key=distances.get)


def _head(connector, tag: str, size: str = "med") -> None:
    line = connector.line._get_or_add_ln()
    etree.SubElement(line, A + tag, type="triangle", w=size, len=size)


def build_slide(annotation, path, *, mode="correct", bind=True, drop=0):
    """Rebuild ``annotation`` as a slide; ``mode`` is correct, reversed or plain (no heads)."""
    width, height = annotation["image"]["width"], annotation["image"]["height"]
    scale = min(SLIDE_W * 0.9 / width, SLIDE_H * 0.8 / height)
    off_x, off_y = SLIDE_W * 0.04, SLIDE_H * 0.15

    def emu(x, y):
        return Emu(round(off_x + x * scale)), Emu(round(off_y + y * scale))

    prs = Presentation()
    prs.slide_width, prs.slide_height = Emu(SLIDE_W), Emu(SLIDE_H)
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    shapes = {}
    for node in annotation["nodes"]:
        x0, y0 = emu(*node["box"][:2])
        x1, y1 = emu(*node["box"][2:])
        kind = MSO_SHAPE.OVAL if node["shape"] == "circle" else MSO_SHAPE.ROUNDED_RECTANGLE
        shape = slide.shapes.add_shape(kind, x0, y0, x1 - x0, y1 - y0)
        if node["shape"] in ("stack", "tokens", "cylinder"):  # glyph, label beside it
            tx0, ty0 = emu(*node["text_box"][:2])
            tx1, ty1 = emu(*node["text_box"][2:])
            slide.shapes.add_textbox(tx0, ty0, tx1 - tx0, ty1 - ty0).text_frame.text = node["text"]
        else:
            shape.text_frame.text = node["text"]
        shapes[node["id"]] = shape
    boxes = {n["id"]: n["box"] for n in annotation["nodes"]}
    for index, edge in enumerate(annotation["edges"]):
        if index < drop:
            continue
        start, end = edge["points"][0], edge["points"][-1]
        kind = MSO_CONNECTOR.STRAIGHT if edge["routing"] == "straight" else MSO_CONNECTOR.ELBOW
        connector = slide.shapes.add_connector(kind, *emu(*start), *emu(*end))
        if bind:
            connector.begin_connect(
                shapes[edge["source"]], SITES[_side(boxes[edge["source"]], start)]
            )
            connector.end_connect(shapes[edge["target"]], SITES[_side(boxes[edge["target"]], end)])
        if edge["style"] == "dashed":
            connector.line.dash_style = MSO_LINE_DASH_STYLE.DASH
        if edge["bidirectional"]:
            _head(connector, "headEnd")
            _head(connector, "tailEnd")
        elif mode == "correct":
            _head(connector, "tailEnd")
        elif mode == "reversed":
            _head(connector, "headEnd")
    prs.save(str(path))
    return path


def _values(kit, path, annotation):
    artifact = dataclasses.replace(kit.inspect(path), annotation=annotation)
    return {v.name: v.value for v in TopologyMetric().compute(artifact)}


def test_faithful_slides_score_full_marks(kit, figures, tmp_path):
    for task, annotation in figures:
        values = _values(kit, build_slide(annotation, tmp_path / f"{task.id}.pptx"), annotation)
        assert values["node_recall"] == 1.0, task.id
        assert values["edge_recall"] == 1.0 and values["edge_precision"] == 1.0, task.id
        assert values["reversed_share"] == 0.0 and values["style_agreement"] == 1.0, task.id


def test_reversed_slides_score_low_on_edges(kit, figures, tmp_path):
    for task, annotation in figures:
        path = build_slide(annotation, tmp_path / f"{task.id}-rev.pptx", mode="reversed")
        values = _values(kit, path, annotation)
        one_way = sum(not e["bidirectional"] for e in annotation["edges"])
        assert values["node_recall"] == 1.0
        assert values["reversed_share"] == pytest.approx(one_way / len(annotation["edges"]))
        assert values["edge_recall"] <= 0.3 and values["edge_precision"] <= 0.3, task.id


def test_missing_and_unbound_arrows(kit, figures, tmp_path):
    _task, annotation = figures[0]
    n = len(annotation["edges"])
    values = _values(kit, build_slide(annotation, tmp_path / "drop.pptx", drop=n // 2), annotation)
    assert values["edge_recall"] == pytest.approx((n - n // 2) / n)
    assert values["edge_precision"] == 1.0
    unbound = _values(kit, build_slide(annotation, tmp_path / "free.pptx", bind=False), annotation)
    assert unbound["edge_recall"] == 1.0


@pytest.mark.slow
def test_tail_end_draws_the_head_at_the_end_point(tmp_path, render):
    """The convention the metric relies on, checked on a LibreOffice rendering."""
    prs = Presentation()
    prs.slide_width, prs.slide_height = Inches(6), Inches(2)
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    # drawn right to left (python-pptx sets flipH): the end point is on the LEFT
    connector = slide.shapes.add_connector(
        MSO_CONNECTOR.STRAIGHT, Inches(5), Inches(1), Inches(1), Inches(1)
    )
    connector.line.width = Inches(0.05)
    _head(connector, "tailEnd", "lg")
    prs.save(str(tmp_path / "tail.pptx"))
    (png,) = render(tmp_path / "tail.pptx")
    dark = np.asarray(Image.open(png).convert("L")) < 128
    width = dark.shape[1]

    def thickness(low: float, high: float) -> int:
        """The thickest dark column between two fractions of the width."""
        return int(dark[:, int(width * low) : int(width * high)].sum(axis=0).max())

    line = thickness(0.45, 0.55)
    assert thickness(0.15, 0.3) > 2 * line  # the head, by the end point (x = 1 in)
    assert thickness(0.7, 0.85) <= line + 2  # no head at the start (x = 5 in)
