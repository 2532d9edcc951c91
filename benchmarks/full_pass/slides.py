"""Slides an agent might have made of a generated figure, in ten styles, from its exact annotation.

Style 0 is a faithful native rebuild (boxes with their text, bound arrows, groups); the others are
what agents also hand in: free lines, text only, unlabelled boxes, the source pasted whole, the
source under native text, half the nodes, a shifted layout, reversed arrows, pasted crops. A seed
moves every shape by a few pixels, so each (figure, style) slide is a distinct artifact.
"""

from __future__ import annotations

import io
import random
from pathlib import Path
from typing import Any

from lxml import etree
from PIL import Image
from pptx import Presentation
from pptx.enum.shapes import MSO_CONNECTOR, MSO_SHAPE
from pptx.util import Emu

STYLES = 10
SLIDE_WIDTH = 12_192_000
_SHAPES = {"box": MSO_SHAPE.RECTANGLE, "rounded": MSO_SHAPE.ROUNDED_RECTANGLE,
           "ellipse": MSO_SHAPE.OVAL, "cylinder": MSO_SHAPE.CAN, "diamond": MSO_SHAPE.DIAMOND}
_A = "http://schemas.openxmlformats.org/drawingml/2006/main"


def _arrow(connector: Any, *, reverse: bool) -> None:
    """An arrow head on the connector's end (or its start when ``reverse``)."""
    line = connector.line._get_or_add_ln()
    etree.SubElement(line, f"{{{_A}}}{'headEnd' if reverse else 'tailEnd'}", type="triangle")


def make_slide(figure: Path, annotation: dict[str, Any], style: int, seed: int,
               out: Path) -> None:
    """Write the slide of ``figure`` in ``style`` (0..9) to ``out``."""
    rng = random.Random(seed)
    width, height = annotation["image"]["width"], annotation["image"]["height"]
    scale = SLIDE_WIDTH / width
    prs = Presentation()
    prs.slide_width, prs.slide_height = Emu(SLIDE_WIDTH), Emu(round(height * scale))
    shapes = prs.slides.add_slide(prs.slide_layouts[6]).shapes
    shift = (rng.uniform(-4, 4), rng.uniform(-4, 4))
    if style == 7:
        shift = (rng.uniform(20, 60), rng.uniform(10, 30))

    def emu(box: list[float]) -> tuple[Emu, Emu, Emu, Emu]:
        x0, y0, x1, y1 = box
        return (Emu(round((x0 + shift[0]) * scale)), Emu(round((y0 + shift[1]) * scale)),
                Emu(max(1, round((x1 - x0) * scale))), Emu(max(1, round((y1 - y0) * scale))))

    if style in (4, 5):
        shapes.add_picture(str(figure), 0, 0, prs.slide_width, prs.slide_height)
    if style == 9:
        with Image.open(figure) as image:
            for part in range(2):
                x0 = part * width // 2
                crop = image.crop((x0, 0, x0 + width // 2, height))
                buffer = io.BytesIO()
                crop.save(buffer, "PNG")
                buffer.seek(0)
                shapes.add_picture(buffer, Emu(round(x0 * scale)), 0,
                                   Emu(round(width / 2 * scale)), prs.slide_height)
    nodes = annotation["nodes"]
    if style == 6:
        nodes = nodes[: max(1, len(nodes) // 2)]
    drawn: dict[str, Any] = {}
    if style not in (4, 9):
        for group in annotation.get("groups", []):
            if style in (0, 8):
                frame = shapes.add_shape(MSO_SHAPE.RECTANGLE, *emu(group["box"]))
                frame.fill.background()
                if group.get("title"):
                    frame.text_frame.text = group["title"]
        for node in nodes:
            if style in (2, 5):
                box = shapes.add_textbox(*emu(node["text_box"] or node["box"]))
                box.text_frame.text = node["text"]
                continue
            shape = shapes.add_shape(_SHAPES.get(node["shape"], MSO_SHAPE.RECTANGLE),
                                     *emu(node["box"]))
            if style != 3:
                shape.text_frame.text = node["text"]
            drawn[node["id"]] = shape
    if style in (0, 1, 6, 7, 8):
        for edge in annotation["edges"]:
            source, target = drawn.get(edge["source"]), drawn.get(edge["target"])
            if source is None or target is None:
                continue
            kind = MSO_CONNECTOR.ELBOW if edge["routing"] == "elbow" else MSO_CONNECTOR.STRAIGHT
            (x0, y0), (x1, y1) = edge["points"][0], edge["points"][-1]
            link = shapes.add_connector(kind, Emu(round(x0 * scale)), Emu(round(y0 * scale)),
                                        Emu(round(x1 * scale)), Emu(round(y1 * scale)))
            if style != 1:
                link.begin_connect(source, 3)
                link.end_connect(target, 1)
            _arrow(link, reverse=style == 8)
    prs.save(out)
