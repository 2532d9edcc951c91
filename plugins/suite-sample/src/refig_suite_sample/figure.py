"""A generated figure as exact geometry: panels, nodes, edges and groups in final-image pixels."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from refig_suite_sample.fonts import FontSet
from refig_suite_sample.geometry import (
    Box,
    Point,
    union,
)

#: Supersampling factor: shapes are drawn this much larger, then downscaled (anti-aliasing).
SCALE = 2

#: (fill, stroke) pairs in the pastel style of published overview figures.
PALETTE = (
    ("#DAE8FC", "#6C8EBF"), ("#D5E8D4", "#82B366"), ("#FFE6CC", "#D79B00"),
    ("#E1D5E7", "#9673A6"), ("#F8CECC", "#B85450"), ("#FFF2CC", "#D6B656"),
    ("#F5F5F5", "#666666"), ("#D0EEF0", "#3E8E96"),
)
GLYPH_SHAPES = ("stack", "tokens", "cylinder")


class LayoutError(Exception):
    """No valid layout was found within the attempt budget."""


@dataclass
class Node:
    """A labelled box or glyph. ``box`` is the shape edges attach to; ``text_box`` its label."""

    id: str
    text: str
    shape: str
    role: str
    panel: int
    col: int
    row: int
    fill: str = ""
    stroke: str = ""
    lines: list[str] = field(default_factory=list)
    font_size: int = 0
    w: float = 0.0
    h: float = 0.0
    label_h: float = 0.0
    cx: float = 0.0
    cy: float = 0.0
    count: int = 0
    colors: list[str] = field(default_factory=list)
    text_box: Box = (0.0, 0.0, 0.0, 0.0)

    @property
    def box(self) -> Box:
        half_w, half_h = self.w / 2, self.h / 2
        return (self.cx - half_w, self.cy - half_h, self.cx + half_w, self.cy + half_h)

    @property
    def extent(self) -> Box:
        return union([self.box, self.text_box])

    @property
    def label_below(self) -> bool:
        return self.shape in GLYPH_SHAPES


@dataclass
class Edge:
    """A directed edge ``source -> target``; ``points`` run from the source to the target."""

    id: str
    source: str
    target: str
    kind: str  # flow | vertical | channel
    dashed: bool = False
    bidirectional: bool = False
    channel: int | None = None
    color: str = "#333333"
    label: str | None = None
    label_box: Box | None = None
    points: list[Point] = field(default_factory=list)

    @property
    def routing(self) -> str:
        return "straight" if len(self.points) == 2 else "elbow"


@dataclass
class Group:
    """A dashed rounded region around a block of grid cells, with a title at its top left."""

    id: str
    title: str
    panel: int
    cols: tuple[int, int]
    rows: tuple[int, int]
    members: list[str] = field(default_factory=list)
    box: Box = (0.0, 0.0, 0.0, 0.0)
    title_box: Box = (0.0, 0.0, 0.0, 0.0)
    stroke: str = "#666666"
    fill: str | None = None


@dataclass
class Panel:
    """One titled panel holding a grid of ``cols`` x ``rows`` slots."""

    index: int
    title: str | None
    cols: int
    rows: int
    box: Box = (0.0, 0.0, 0.0, 0.0)
    content: Box = (0.0, 0.0, 0.0, 0.0)
    title_box: Box | None = None
    fill: str | None = None

    @property
    def id(self) -> str:
        return f"p{self.index + 1}"


@dataclass
class Figure:
    """Everything needed to draw a figure and to write its annotation."""

    width: int
    height: int
    fonts: FontSet
    font_size: int
    title_size: int
    small_size: int
    line_width: int
    head_length: float
    head_width: float
    radius: float
    panel_separator: str  # none | line | tint
    panels: list[Panel] = field(default_factory=list)
    nodes: list[Node] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    groups: list[Group] = field(default_factory=list)

    def node(self, node_id: str) -> Node:
        return next(n for n in self.nodes if n.id == node_id)


def line_spacing(size: int) -> int:
    return max(2, round(size * 0.28))

def obstacle(node: Node) -> Box:
    """The part of a node's box that its outline certainly covers (edges must stay out)."""
    x0, y0, x1, y1 = node.box
    if node.shape == "circle":
        half = node.w / 2 / math.sqrt(2)
        return (node.cx - half, node.cy - half, node.cx + half, node.cy + half)
    if node.shape == "cylinder":
        cap = cylinder_cap(node)
        return (x0, y0 + 2 * cap, x1, y1 - 2 * cap)
    return node.box


def cylinder_cap(node: Node) -> float:
    """Half the height of a cylinder's elliptic cap."""
    return node.h * 0.11
