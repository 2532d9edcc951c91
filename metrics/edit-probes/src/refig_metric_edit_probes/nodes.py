"""Which shape the slide probes edit, and the lines drawn to it, read from the object tree.

A **node** is a shown, text-bearing shape (an auto shape, text box or placeholder with text). The
probed node is the one most line ends meet: a connector end glued to it (``a:stCxn``/``a:endCxn``)
or a line end that lies on its border (within :data:`TOUCH_SHARE` of the slide's diagonal). With
no line ends anywhere, it is the largest node, so a figure whose lines are in a picture under
native labels is still probed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from refig_toolkit_pptx import ObjectKind, ObjectTree, Rect, SlideObject
from refig_toolkit_pptx.lines import has_line_preset

#: A line end this close to a node's border (share of the slide's diagonal) touches it.
TOUCH_SHARE = 0.01
NODE_KINDS = frozenset({ObjectKind.AUTO_SHAPE, ObjectKind.TEXT_BOX, ObjectKind.PLACEHOLDER})

Point = tuple[float, float]


@dataclass(frozen=True)
class Edge:
    """A line with one end on the node: its id, which end (0 start, 1 end), whether that end is
    glued, the two end points (slide EMU) and whether its other end is glued to the node too."""

    line: SlideObject
    end: int
    glued: bool
    points: tuple[Point, Point]
    both_glued: bool = False

    @property
    def on_node(self) -> Point:
        """The end that meets the node."""
        return self.points[self.end]

    @property
    def far(self) -> Point:
        """The other end."""
        return self.points[1 - self.end]


@dataclass(frozen=True)
class Target:
    """The probed node and the edges drawn to it."""

    node: SlideObject
    edges: tuple[Edge, ...]

    @property
    def rect(self) -> Rect:
        assert self.node.rect is not None
        return self.node.rect


def endpoints(obj: SlideObject) -> tuple[Point, Point]:
    """A line's start and end in slide EMU: its frame's corners after flips, then rotation."""
    assert obj.rect is not None
    r = obj.rect
    x0, x1 = (r.x + r.w, r.x) if obj.flip_h else (r.x, r.x + r.w)
    y0, y1 = (r.y + r.h, r.y) if obj.flip_v else (r.y, r.y + r.h)
    cx, cy = r.x + r.w / 2, r.y + r.h / 2
    theta = math.radians(obj.rotation)
    cos, sin = math.cos(theta), math.sin(theta)

    def turn(x: float, y: float) -> Point:
        dx, dy = x - cx, y - cy
        return cx + dx * cos - dy * sin, cy + dx * sin + dy * cos

    return turn(x0, y0), turn(x1, y1)


def border_distance(point: Point, rect: Rect) -> float:
    """How far a point lies from a box's border (inside or out)."""
    x, y = point
    outside = math.hypot(
        max(rect.x - x, 0.0, x - rect.x - rect.w), max(rect.y - y, 0.0, y - rect.y - rect.h)
    )
    if outside > 0:
        return outside
    return min(x - rect.x, rect.x + rect.w - x, y - rect.y, rect.y + rect.h - y)


def is_line(obj: SlideObject) -> bool:
    """A connector, or a shape drawn with a line preset."""
    return obj.kind is ObjectKind.CONNECTOR or has_line_preset(obj)


def is_node(obj: SlideObject) -> bool:
    """A text-bearing shape with an id and a frame, not turned (its frame is where it paints)."""
    return (
        obj.kind in NODE_KINDS
        and obj.id is not None
        and bool(obj.text.strip())
        and obj.rect is not None
        and obj.rect.w > 0
        and obj.rect.h > 0
        and obj.rotation % 360 == 0
        and not has_line_preset(obj)
    )


def edges_to(node: SlideObject, lines: list[SlideObject], tolerance: float) -> list[Edge]:
    """The lines with an end glued to ``node`` or lying on its border (a free end, or one glued
    to a shape drawn under the node's text)."""
    assert node.rect is not None
    found: list[Edge] = []
    for line in lines:
        points = endpoints(line)
        glued = [e is not None and e.shape_id == node.id for e in (line.start, line.end)]
        for end in (0, 1):
            if glued[end] or border_distance(points[end], node.rect) <= tolerance:
                found.append(Edge(line, end, glued[end], points, both_glued=all(glued)))
                break
    return found


def choose_target(tree: ObjectTree) -> Target | None:
    """The node most line ends meet (ties: the larger, then the earlier); None without nodes."""
    shown = list(tree.shown())
    nodes = [o for o in shown if is_node(o)]
    if not nodes:
        return None
    lines = [o for o in shown if is_line(o) and o.rect is not None]
    tolerance = TOUCH_SHARE * math.hypot(tree.slide_width, tree.slide_height)
    scored = [(node, edges_to(node, lines, tolerance)) for node in nodes]
    node, edges = max(
        scored,
        key=lambda pair: (len(pair[1]), pair[0].rect.w * pair[0].rect.h if pair[0].rect else 0.0),
    )
    return Target(node, tuple(edges))
