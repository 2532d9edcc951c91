"""What the topology metric reads from a slide: text shapes and directed links, in slide EMU.

Arrow heads follow DrawingML: ``a:headEnd`` decorates the START of a line (its first path point)
and ``a:tailEnd`` its END. The object tree reports them as ``start_arrow`` and ``end_arrow``. A
line's path runs from the top-left corner of its box to the bottom-right, swapped by ``flipH`` /
``flipV`` and turned by the rotation about the box centre. An end carrying a head is where the link
points: a head at the end only means start -> end, at the start only end -> start.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from refig_toolkit_pptx import Endpoint, ObjectKind, ObjectTree, SlideObject
from refig_toolkit_pptx.lines import has_line_preset

Point = tuple[float, float]
Box = tuple[float, float, float, float]

#: Block-arrow presets: which ends carry a head, before flips and rotation.
BLOCK_ARROWS: dict[str, tuple[str, bool, bool]] = {
    # preset: (axis, head at start, head at end); start is left/top, end right/bottom
    "rightArrow": ("x", False, True),
    "leftArrow": ("x", True, False),
    "downArrow": ("y", False, True),
    "upArrow": ("y", True, False),
    "leftRightArrow": ("x", True, True),
    "upDownArrow": ("y", True, True),
    "notchedRightArrow": ("x", False, True),
    "stripedRightArrow": ("x", False, True),
}
NO_HEAD = frozenset({"", "none"})
SOLID = frozenset({"", "solid"})


@dataclass(frozen=True)
class TextShape:
    """A shape that shows text, with its box in slide EMU."""

    id: int | None
    text: str
    box: Box


@dataclass(frozen=True)
class Link:
    """A line, connector or block arrow between two points, with its heads and bindings."""

    id: int | None
    name: str
    start: Point
    end: Point
    start_head: bool
    end_head: bool
    dashed: bool
    start_binding: Endpoint | None = None
    end_binding: Endpoint | None = None


def _box(obj: SlideObject) -> Box | None:
    if obj.rect is None:
        return None
    r = obj.rect
    return (r.x, r.y, r.x + r.w, r.y + r.h)


def _rotate(point: Point, centre: Point, degrees: float) -> Point:
    if not degrees:
        return point
    a = math.radians(degrees)
    dx, dy = point[0] - centre[0], point[1] - centre[1]
    return (
        centre[0] + dx * math.cos(a) - dy * math.sin(a),
        centre[1] + dx * math.sin(a) + dy * math.cos(a),
    )


def _ends(obj: SlideObject, axis: str | None = None) -> tuple[Point, Point]:
    """A line's start and end points (a block arrow's tail and tip along ``axis``)."""
    assert obj.rect is not None
    x0, y0, w, h = obj.rect.x, obj.rect.y, obj.rect.w, obj.rect.h
    centre = (x0 + w / 2, y0 + h / 2)
    if axis == "x":
        start, end = (x0, centre[1]), (x0 + w, centre[1])
    elif axis == "y":
        start, end = (centre[0], y0), (centre[0], y0 + h)
    else:
        start, end = (x0, y0), (x0 + w, y0 + h)
    if obj.flip_h:
        start, end = (2 * centre[0] - start[0], start[1]), (2 * centre[0] - end[0], end[1])
    if obj.flip_v != (obj.geometry == "lineInv"):  # lineInv runs bottom-left to top-right
        start, end = (start[0], 2 * centre[1] - start[1]), (end[0], 2 * centre[1] - end[1])
    return _rotate(start, centre, obj.rotation), _rotate(end, centre, obj.rotation)


def _is_line(obj: SlideObject) -> bool:
    return obj.kind is ObjectKind.CONNECTOR or has_line_preset(obj)


def _own(tree: ObjectTree) -> list[SlideObject]:
    """Objects the slide itself paints (not its layout or master), groups unfolded."""
    return [o for o in tree.shown() if o.kind is not ObjectKind.GROUP]


def text_shapes(tree: ObjectTree) -> list[TextShape]:
    """Every painted object with text and a position (text boxes, shapes, placeholders)."""
    skip = {ObjectKind.CONNECTOR, ObjectKind.TABLE, ObjectKind.CHART, ObjectKind.PICTURE}
    return [
        TextShape(o.id, o.text, box)
        for o in _own(tree)
        if o.text.strip() and o.kind not in skip and (box := _box(o)) is not None
    ]


def shapes_by_id(tree: ObjectTree) -> dict[int, Box]:
    """Boxes of the shapes connectors may bind to."""
    return {
        o.id: box
        for o in _own(tree)
        if o.id is not None and not _is_line(o) and (box := _box(o)) is not None
    }


def links(tree: ObjectTree) -> list[Link]:
    """Connectors, line shapes and block arrows, with their ends and heads."""
    found: list[Link] = []
    for obj in _own(tree):
        if obj.rect is None:
            continue
        dashed = (obj.dash or "") not in SOLID
        if _is_line(obj):
            start, end = _ends(obj)
            found.append(
                Link(
                    obj.id,
                    obj.name,
                    start,
                    end,
                    start_head=(obj.start_arrow or "") not in NO_HEAD,
                    end_head=(obj.end_arrow or "") not in NO_HEAD,
                    dashed=dashed,
                    start_binding=obj.start,
                    end_binding=obj.end,
                )
            )
        elif obj.kind is ObjectKind.AUTO_SHAPE and (obj.geometry or "") in BLOCK_ARROWS:
            axis, start_head, end_head = BLOCK_ARROWS[obj.geometry or ""]
            start, end = _ends(obj, axis)
            found.append(Link(obj.id, obj.name, start, end, start_head, end_head, dashed))
    return found
