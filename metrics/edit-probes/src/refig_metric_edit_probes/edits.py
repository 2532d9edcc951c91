"""The slide edits, applied with lxml to a copy of the slide XML the way PowerPoint applies them.

Coordinates arrive in slide EMU and are mapped into each shape's group space (``a:chOff`` /
``a:chExt`` of every enclosing ``p:grpSp``), so a node inside a group moves as a person dragging it
inside the group would move it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator

from lxml import etree
from refig_toolkit_pptx import q

from refig_metric_edit_probes.nodes import Edge, Point

#: Fill elements of ``p:spPr`` a recolour replaces.
FILLS = ("a:noFill", "a:solidFill", "a:gradFill", "a:blipFill", "a:pattFill", "a:grpFill")
#: Run-level children a relabel removes after the first run (its text goes there).
RUN_LEVEL = ("a:r", "a:fld", "a:br")


class EditError(ValueError):
    """The slide does not hold what the edit needs (the probe is then not applicable)."""


def shapes_with_id(root: etree._Element, shape_id: int) -> list[etree._Element]:
    """Every shape element whose ``p:cNvPr`` has this id (both branches of alternate content)."""
    found = [
        c.getparent().getparent() for c in root.iter(q("p:cNvPr")) if c.get("id") == str(shape_id)
    ]
    if not found:
        raise EditError(f"no shape with id {shape_id}")
    return found


def _xfrm(shape: etree._Element) -> etree._Element:
    props = shape.find(q("p:spPr"))
    if props is None:
        props = shape.find(q("p:grpSpPr"))
    xfrm = None if props is None else props.find(q("a:xfrm"))
    if xfrm is None or xfrm.find(q("a:off")) is None or xfrm.find(q("a:ext")) is None:
        raise EditError("the shape has no a:xfrm of its own")
    return xfrm


def _groups(shape: etree._Element) -> list[etree._Element]:
    """The enclosing groups, outermost first."""
    groups = [a for a in shape.iterancestors(q("p:grpSp"))]
    return list(reversed(groups))


def _group_maps(shape: etree._Element) -> Iterator[tuple[Point, Point, Point]]:
    """Per enclosing group: its offset, its child offset and the child-per-slide scale."""
    for group in _groups(shape):
        xfrm = _xfrm(group)
        off, ext = xfrm.find(q("a:off")), xfrm.find(q("a:ext"))
        ch_off, ch_ext = xfrm.find(q("a:chOff")), xfrm.find(q("a:chExt"))
        if ch_off is None or ch_ext is None:
            yield (float(off.get("x")), float(off.get("y"))), (0.0, 0.0), (1.0, 1.0)
            continue
        sx = float(ch_ext.get("cx")) / float(ext.get("cx")) if float(ext.get("cx")) else 1.0
        sy = float(ch_ext.get("cy")) / float(ext.get("cy")) if float(ext.get("cy")) else 1.0
        yield (
            (float(off.get("x")), float(off.get("y"))),
            (float(ch_off.get("x")), float(ch_off.get("y"))),
            (sx, sy),
        )


def to_local(shape: etree._Element, point: Point) -> Point:
    """A slide point in the coordinate space the shape's ``a:xfrm`` is written in."""
    x, y = point
    for (ox, oy), (cx, cy), (sx, sy) in _group_maps(shape):
        x, y = cx + (x - ox) * sx, cy + (y - oy) * sy
    return x, y


def move_shape(shape: etree._Element, delta: Point) -> None:
    """Shift a shape's offset by ``delta`` slide EMU."""
    off = _xfrm(shape).find(q("a:off"))
    sx = sy = 1.0
    for _, _, (gx, gy) in _group_maps(shape):
        sx, sy = sx * gx, sy * gy
    off.set("x", str(round(float(off.get("x")) + delta[0] * sx)))
    off.set("y", str(round(float(off.get("y")) + delta[1] * sy)))


def set_line(shape: etree._Element, start: Point, end: Point) -> None:
    """Rewrite a line's frame so it runs from ``start`` to ``end`` (slide EMU), unturned."""
    xfrm = _xfrm(shape)
    (x0, y0), (x1, y1) = to_local(shape, start), to_local(shape, end)
    for name in ("rot", "flipH", "flipV"):
        xfrm.attrib.pop(name, None)
    if x1 < x0:
        xfrm.set("flipH", "1")
    if y1 < y0:
        xfrm.set("flipV", "1")
    xfrm.find(q("a:off")).attrib.update(
        {"x": str(round(min(x0, x1))), "y": str(round(min(y0, y1)))}
    )
    xfrm.find(q("a:ext")).attrib.update(
        {"cx": str(round(abs(x1 - x0))), "cy": str(round(abs(y1 - y0)))}
    )


def rerouted(edge: Edge, delta: Point) -> tuple[Point, Point]:
    """A glued line's ends after its node moved by ``delta``: the glued ends follow."""
    points = list(edge.points)
    for end in (0, 1) if edge.both_glued else (edge.end,):
        points[end] = (points[end][0] + delta[0], points[end][1] + delta[1])
    return points[0], points[1]


def move(root: etree._Element, node_id: int, delta: Point, edges: Iterable[Edge]) -> None:
    """Move the node; its glued connectors follow to the same connection sites, free lines stay."""
    for shape in shapes_with_id(root, node_id):
        move_shape(shape, delta)
    for edge in edges:
        if edge.glued and edge.line.id is not None:
            start, end = rerouted(edge, delta)
            for shape in shapes_with_id(root, edge.line.id):
                set_line(shape, start, end)


def hide(root: etree._Element, node_id: int) -> None:
    """Draw the node hidden (``hidden`` on its ``p:cNvPr``): its glued connectors still end on
    its connection sites, so the rendering shows the lines' own ink where it went."""
    for shape in shapes_with_id(root, node_id):
        shape.find(f"*/{q('p:cNvPr')}").set("hidden", "1")


def longer_label(text: str) -> str:
    """The label half again as long: its words, then the first half of them again."""
    words = " ".join(text.split())
    half = words[: math.ceil(len(words) / 2)].strip()
    return f"{words} {half}"


def relabel(root: etree._Element, node_id: int, label: str) -> None:
    """Put ``label`` in the node's first run; every other run, field and break goes."""
    for shape in shapes_with_id(root, node_id):
        body = shape.find(q("p:txBody"))
        runs = [] if body is None else list(body.iter(q("a:r")))
        if not runs:
            raise EditError("the node's text is in no a:r run")
        first = runs[0]
        text = first.find(q("a:t"))
        if text is None:
            text = etree.SubElement(first, q("a:t"))
        text.text = label
        keep = first.getparent()
        for paragraph in list(body.iter(q("a:p"))):
            for child in list(paragraph):
                if child is not first and child.tag in {q(n) for n in RUN_LEVEL}:
                    paragraph.remove(child)
            if paragraph is not keep:
                body.remove(paragraph)


def delete(root: etree._Element, ids: Iterable[int]) -> None:
    """Remove the shapes with these ids (the node and the lines glued to it)."""
    for shape_id in ids:
        for shape in shapes_with_id(root, shape_id):
            shape.getparent().remove(shape)


def recolour(root: etree._Element, node_id: int, colour: str) -> None:
    """Give the node a solid fill of ``colour`` (hex RGB) in place of whatever fill it had."""
    for shape in shapes_with_id(root, node_id):
        props = shape.find(q("p:spPr"))
        if props is None:
            raise EditError("the node has no p:spPr")
        for name in FILLS:
            for old in props.findall(q(name)):
                props.remove(old)
        fill = etree.Element(q("a:solidFill"))
        etree.SubElement(fill, q("a:srgbClr")).set("val", colour)
        after = [props.find(q(n)) for n in ("a:prstGeom", "a:custGeom", "a:xfrm")]
        anchor = next((a for a in after if a is not None), None)
        props.insert(0 if anchor is None else props.index(anchor) + 1, fill)
