"""Writes ``slides.pptx``, the golden deck of the slide families' canary (a maintainer tool).

Four slides, one hard case of slide rendering each: CJK and Latin text in the fonts a deck made
on Windows names (Calibri, Cambria, an East Asian face), connectors glued to shapes, gradient
fills, and a rotated group. Run ``uv run python plugins/toolkit-pptx/tests/build_golden_deck.py``
after changing it, then ``refig canary --update`` to record its renderings again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pptx import Presentation
from pptx.dml.color import RGBColor
from pptx.enum.shapes import MSO_CONNECTOR, MSO_SHAPE
from pptx.oxml.ns import qn
from pptx.util import Emu, Inches, Pt

DECK = (Path(__file__).parents[1] / "src" / "refig_toolkit_pptx" / "golden" / "slides.pptx")


def _text(slide: Any, left: float, top: float, width: float, text: str, *, latin: str,
          east_asian: str | None = None, size: int = 28) -> None:
    box = slide.shapes.add_textbox(Inches(left), Inches(top), Inches(width), Inches(0.8))
    run = box.text_frame.paragraphs[0].add_run()
    run.text = text
    run.font.size = Pt(size)
    run.font.name = latin
    if east_asian:
        run.font._rPr.get_or_add_latin()  # keeps <a:latin> before <a:ea>, as the schema orders
        run.font._rPr.append(run.font._rPr.makeelement(qn("a:ea"), {"typeface": east_asian}))


def _cjk(prs: Any) -> None:
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    _text(slide, 0.5, 0.4, 9, "Calibri: The quick brown fox 0123", latin="Calibri")
    _text(slide, 0.5, 1.4, 9, "Cambria: Sphinx of black quartz", latin="Cambria")
    _text(slide, 0.5, 2.4, 9, "图表编辑：中文文本与标点。", latin="Calibri",
          east_asian="Noto Sans CJK SC")
    _text(slide, 0.5, 3.4, 9, "図の編集：日本語のテキスト", latin="Calibri",
          east_asian="Noto Sans CJK JP")
    _text(slide, 0.5, 4.4, 9, "그림 편집: 한국어 텍스트", latin="Calibri",
          east_asian="Noto Sans CJK KR")


def _connectors(prs: Any) -> None:
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    boxes = []
    for i, (x, y) in enumerate([(0.6, 0.6), (6.6, 0.6), (3.6, 3.8)]):
        box = slide.shapes.add_shape(MSO_SHAPE.ROUNDED_RECTANGLE, Inches(x), Inches(y),
                                     Inches(2.4), Inches(1.2))
        box.text_frame.text = f"Node {i + 1}"
        boxes.append(box)
    for start, end, kind in [(0, 1, MSO_CONNECTOR.STRAIGHT), (1, 2, MSO_CONNECTOR.ELBOW),
                             (2, 0, MSO_CONNECTOR.CURVE)]:
        line = slide.shapes.add_connector(kind, 0, 0, 0, 0)
        line.begin_connect(boxes[start], 3 if kind is MSO_CONNECTOR.STRAIGHT else 2)
        line.end_connect(boxes[end], 1 if kind is MSO_CONNECTOR.STRAIGHT else 0)
        line.line.width = Pt(2.5)
        line.line.color.rgb = RGBColor(0x33, 0x33, 0x99)
        tail = line.line._get_or_add_ln().makeelement(qn("a:tailEnd"), {"type": "triangle"})
        line.line._get_or_add_ln().append(tail)


def _gradients(prs: Any) -> None:
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    for i, angle in enumerate((0, 45, 90)):
        shape = slide.shapes.add_shape(MSO_SHAPE.OVAL if i == 1 else MSO_SHAPE.RECTANGLE,
                                       Inches(0.5 + 3.1 * i), Inches(1.2), Inches(2.8),
                                       Inches(2.8))
        shape.fill.gradient()
        shape.fill.gradient_angle = angle
        stops = shape.fill.gradient_stops
        stops[0].color.rgb = RGBColor(0xE0, 0x40, 0x20)
        stops[1].color.rgb = RGBColor(0x20, 0x60, 0xD0)
        shape.line.fill.background()


def _groups(prs: Any) -> None:
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    outer = slide.shapes.add_group_shape()
    for i in range(3):
        part = outer.shapes.add_shape(MSO_SHAPE.HEXAGON, Inches(1 + 1.8 * i), Inches(1.5),
                                      Inches(1.6), Inches(1.4))
        part.fill.solid()
        part.fill.fore_color.rgb = RGBColor(0x30 + 0x40 * i, 0xA0, 0x60)
        part.text_frame.text = f"G{i + 1}"
    inner = outer.shapes.add_group_shape()
    star = inner.shapes.add_shape(MSO_SHAPE.STAR_5_POINT, Inches(2), Inches(3.4), Inches(1.5),
                                  Inches(1.5))
    star.fill.solid()
    star.fill.fore_color.rgb = RGBColor(0xF0, 0xC0, 0x20)
    inner.shapes.add_shape(MSO_SHAPE.ARC, Inches(4), Inches(3.4), Inches(1.5), Inches(1.5))
    outer.rotation = 12.0


def build(path: Path = DECK) -> Path:
    """The golden deck written to ``path`` (16:9, one hard case per slide)."""
    prs = Presentation()
    prs.slide_width, prs.slide_height = Emu(12192000 * 3 // 4), Emu(6858000 * 3 // 4)
    for make in (_cjk, _connectors, _gradients, _groups):
        make(prs)
    prs.save(str(path))
    return path


if __name__ == "__main__":
    print(build())
