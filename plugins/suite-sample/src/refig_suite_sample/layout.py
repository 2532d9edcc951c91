"""Random overview figures as exact geometry: titled panels, nodes on a grid, routed edges, groups.

A figure is generated, laid out and then checked (nothing overlaps, no edge runs through a box or
alongside another edge, arrow heads fit); a layout that fails a check is drawn again from the same
random stream, so a seed always yields the same figure. Coordinates are final-image pixels.
"""

from __future__ import annotations

import itertools
import math
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from PIL import Image, ImageDraw

from refig_suite_sample import words
from refig_suite_sample.difficulty import PRESETS, Difficulty, Preset
from refig_suite_sample.fonts import FontSet
from refig_suite_sample.geometry import (
    Box,
    Point,
    contains,
    crossing,
    grow,
    length,
    overlaps,
    segment_hits_box,
    segments,
    too_close,
    trimmed,
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


class _Measure:
    """Text extents at drawing scale, reported in final pixels."""

    def __init__(self, fonts: FontSet):
        self.fonts = fonts
        self.draw = ImageDraw.Draw(Image.new("RGB", (1, 1)))

    def box(self, lines: list[str], size: int, face: str, center: Point) -> Box:
        font = self.fonts.get(size * SCALE, face)
        x0, y0, x1, y1 = self.draw.multiline_textbbox(
            (center[0] * SCALE, center[1] * SCALE), "\n".join(lines), font=font, anchor="mm",
            align="center", spacing=line_spacing(size) * SCALE,
        )
        return (x0 / SCALE, y0 / SCALE, x1 / SCALE, y1 / SCALE)

    def size(self, lines: list[str], size: int, face: str = "regular") -> tuple[float, float]:
        x0, y0, x1, y1 = self.box(lines, size, face, (0, 0))
        return x1 - x0, y1 - y0

    def wrap(self, text: str, size: int, max_width: float, max_lines: int) -> list[str] | None:
        """Break ``text`` at spaces into at most ``max_lines`` lines no wider than ``max_width``."""
        tokens = re.findall(r"\S+?-(?=\S)|\S+", text)
        for n_lines in range(1, min(max_lines, len(tokens)) + 1):
            options = []
            for cuts in itertools.combinations(range(1, len(tokens)), n_lines - 1):
                bounds = (0, *cuts, len(tokens))
                lines = [_join(tokens[a:b]) for a, b in itertools.pairwise(bounds)]
                options.append((max(self.size([line], size)[0] for line in lines), lines))
            widest, lines = min(options, key=lambda o: o[0])
            if widest <= max_width:
                return lines
        return None


def line_spacing(size: int) -> int:
    return max(2, round(size * 0.28))


def _join(tokens: list[str]) -> str:
    """Tokens back into text: a token ending in a hyphen joins the next without a space."""
    return "".join(t if t.endswith("-") else t + " " for t in tokens).strip()



def _pick(rng: random.Random, span: tuple[int, int]) -> int:
    return rng.randint(span[0], span[1])


# --- the random graph ---------------------------------------------------------------------------


def _place_nodes(rng: random.Random, preset: Preset, panels: list[Panel]) -> list[Node]:
    nodes: list[Node] = []
    for panel in panels:
        for col in range(panel.cols):
            rows = [r for r in range(panel.rows) if r == 0 or rng.random() < preset.fill]
            if len(rows) < panel.rows and rng.random() < 0.5:
                shift = rng.randint(0, panel.rows - len(rows))
                rows = [r + shift for r in range(len(rows))]
            for row in rows:
                nodes.append(Node(id="", text="", shape="rounded", role="", panel=panel.index,
                                  col=col, row=row))
    for i, node in enumerate(nodes):
        node.id = f"n{i + 1}"
    return nodes


def _cell(nodes: list[Node], panel: int, col: int, row: int) -> Node | None:
    return next((n for n in nodes if (n.panel, n.col, n.row) == (panel, col, row)), None)


def _make_edges(rng: random.Random, preset: Preset, panels: list[Panel],
                nodes: list[Node]) -> list[Edge]:
    pairs: list[tuple[Node, Node, str, int | None]] = []

    def has(a: Node, b: Node) -> bool:
        return any({p[0].id, p[1].id} == {a.id, b.id} for p in pairs)

    for panel in panels:
        columns = [[n for n in nodes if n.panel == panel.index and n.col == c]
                   for c in range(panel.cols)]
        for left, right in itertools.pairwise(columns):
            for v in right:
                u = min(left, key=lambda n: (abs(n.row - v.row), rng.random()))
                if not has(u, v):
                    pairs.append((u, v, "flow", None))
            for u in left:
                if not any(p[0] is u for p in pairs):
                    v = min(right, key=lambda n: (abs(n.row - u.row), rng.random()))
                    if not has(u, v):
                        pairs.append((u, v, "flow", None))
            for u in left:
                for v in right:
                    near = abs(u.row - v.row) <= 1
                    if not has(u, v) and near and rng.random() < preset.extra_flow:
                        pairs.append((u, v, "flow", None))
        for column in columns:
            for a, b in itertools.pairwise(column):
                if b.row == a.row + 1 and rng.random() < preset.vertical:
                    pairs.append((a, b, "vertical", None) if rng.random() < 0.8
                                 else (b, a, "vertical", None))
        in_panel = [n for n in nodes if n.panel == panel.index]
        candidates = [(u, v) for u in in_panel for v in in_panel
                      if abs(u.col - v.col) >= 2 and abs(u.row - v.row) <= 1]
        rng.shuffle(candidates)
        skips = _pick(rng, preset.skips)
        feedback = _pick(rng, preset.feedback)
        for u, v in candidates:
            forward = v.col > u.col
            if has(u, v) or (forward and skips <= 0) or (not forward and feedback <= 0):
                continue
            if u.row == v.row:
                channel = u.row + (1 if rng.random() < 0.5 else 0)
            else:
                channel = max(u.row, v.row)
            pairs.append((u, v, "channel", channel))
            if forward:
                skips -= 1
            else:
                feedback -= 1
    edges: list[Edge] = []
    for i, (u, v, kind, channel) in enumerate(pairs):
        backward = kind == "channel" and v.col < u.col
        edge = Edge(id=f"e{i + 1}", source=u.id, target=v.id, kind=kind, channel=channel)
        edge.dashed = rng.random() < (0.75 if backward else preset.dashed)
        edge.bidirectional = not backward and rng.random() < preset.bidirectional
        edges.append(edge)
    return edges


def _label_nodes(rng: random.Random, preset: Preset, nodes: list[Node], edges: list[Edge],
                 panels: list[Panel]) -> None:
    used: list[str] = []

    def draw_word(options: tuple[str, ...]) -> str:
        fresh = [w for w in options if w not in used]
        if preset.duplicate_labels and used and rng.random() < 0.12:
            fresh = [w for w in options if w in used] or fresh
        word = rng.choice(fresh or list(options))
        used.append(word)
        return word

    indegree = {n.id: sum(1 for e in edges if e.target == n.id) for n in nodes}
    operator_budget = _pick(rng, preset.operators)
    for node in nodes:
        if operator_budget > 0 and indegree[node.id] >= 2 and node.col > 0:
            node.shape, node.role, node.text = "circle", "operator", rng.choice(words.OPERATORS)
            operator_budget -= 1
    glyph_budget = _pick(rng, preset.glyphs)
    rows = {n.id: n.row for n in nodes}
    # a glyph's label hangs below it, so glyphs go where no edge leaves through the bottom
    bottom_used = {e.source if rows[e.source] < rows[e.target] else e.target
                   for e in edges if e.kind == "vertical"}
    bottom_used |= {i for e in edges if e.kind == "channel" and e.channel is not None
                    for i in (e.source, e.target) if rows[i] < e.channel}
    candidates = [n for n in nodes if n.shape != "circle" and n.id not in bottom_used]
    rng.shuffle(candidates)
    for node in candidates[:glyph_budget]:
        node.shape = rng.choice(GLYPH_SHAPES)
        node.role = node.shape
        node.text = draw_word(words.GLYPH_WORDS[node.shape])
    for node in nodes:
        if node.text:
            continue
        cols = panels[node.panel].cols
        position = node.col / max(1, cols - 1)
        index = min(len(words.ROLE_ORDER) - 2, int(position * (len(words.ROLE_ORDER) - 1)))
        if position == 1.0:
            index = len(words.ROLE_ORDER) - 2 if rng.random() < 0.6 else len(words.ROLE_ORDER) - 1
        node.role = words.ROLE_ORDER[index]
        node.text = draw_word(words.NODE_WORDS[node.role])
        node.shape = "rounded" if rng.random() < 0.75 else "box"


def _make_groups(rng: random.Random, preset: Preset, panels: list[Panel],
                 nodes: list[Node]) -> list[Group]:
    groups: list[Group] = []
    wanted = _pick(rng, preset.groups)
    taken: list[tuple[int, int, int, int, int]] = []
    for _ in range(wanted * 6):
        if len(groups) >= wanted:
            break
        panel = rng.choice(panels)
        width = rng.randint(1, min(3, panel.cols))
        c0 = rng.randint(0, panel.cols - width)
        r0 = rng.randint(0, panel.rows - 1)
        r1 = rng.randint(r0, panel.rows - 1)
        members = [n for n in nodes if n.panel == panel.index and c0 <= n.col < c0 + width
                   and r0 <= n.row <= r1]
        if len(members) < 2 or len(members) == sum(1 for n in nodes if n.panel == panel.index):
            continue
        cell = (panel.index, c0, c0 + width - 1, r0, r1)
        if any(t[0] == cell[0] and not (cell[2] < t[1] - 0 or t[2] < cell[1] - 0
                                        or cell[4] < t[3] or t[4] < cell[3]) for t in taken):
            continue
        taken.append(cell)
        group = Group(id=f"g{len(groups) + 1}", title=rng.choice(words.GROUP_TITLES),
                      panel=panel.index, cols=(c0, c0 + width - 1), rows=(r0, r1),
                      members=[m.id for m in members])
        groups.append(group)
    return groups


# --- geometry ------------------------------------------------------------------------------------


@dataclass
class _Port:
    edge: Edge
    end: str  # "source" | "target"
    node: Node
    side: str
    other: Node
    point: Point = (0.0, 0.0)


def _sides(edge: Edge, u: Node, v: Node) -> tuple[str, str]:
    if edge.kind == "flow":
        return ("right", "left") if v.col > u.col else ("left", "right")
    if edge.kind == "vertical":
        return ("bottom", "top") if v.row > u.row else ("top", "bottom")
    assert edge.channel is not None
    return tuple("bottom" if n.row < edge.channel else "top" for n in (u, v))  # type: ignore[return-value]


def _boundary(node: Node, side: str, offset: float) -> Point:
    """The point of ``side`` at ``offset`` (pixels from the side's middle) on the node's outline."""
    x0, y0, x1, y1 = node.box
    a, b = node.w / 2, node.h / 2
    if side in ("left", "right"):
        y = node.cy + offset
        if node.shape == "circle":
            dx = a * math.sqrt(max(0.0, 1 - (offset / b) ** 2))
            return (node.cx - dx if side == "left" else node.cx + dx, y)
        return (x0 if side == "left" else x1, y)
    x = node.cx + offset
    if node.shape == "circle":
        dy = b * math.sqrt(max(0.0, 1 - (offset / a) ** 2))
        return (x, node.cy - dy if side == "top" else node.cy + dy)
    if node.shape == "cylinder":
        cap = cylinder_cap(node)
        rise = cap * math.sqrt(max(0.0, 1 - (offset / a) ** 2))
        return (x, y0 + cap - rise) if side == "top" else (x, y1 - cap + rise)
    return (x, y0 if side == "top" else y1)


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


def _assign_ports(fig: Figure, ports: list[_Port]) -> None:
    by_side: dict[tuple[str, str], list[_Port]] = {}
    for port in ports:
        by_side.setdefault((port.node.id, port.side), []).append(port)
    for (_, side), group in by_side.items():
        if len(group) > 3:
            raise LayoutError("too many edges on one side")
        node = group[0].node
        horizontal = side in ("top", "bottom")
        group.sort(key=lambda p: (p.other.cx, p.other.cy) if horizontal
                   else (p.other.cy, p.other.cx))
        span = (node.w if horizontal else node.h) * (0.55 if node.shape != "circle" else 0.6)
        k = len(group)
        for i, port in enumerate(group):
            offset = 0.0 if k == 1 else span * (i / (k - 1) - 0.5)
            port.point = _boundary(node, side, round(offset))


def _lanes(low: float, high: float, count: int, gap: float) -> list[float]:
    if count == 0:
        return []
    if high - low < gap * (count - 1) or high <= low:
        raise LayoutError("no room for lanes")
    middle = (low + high) / 2
    spacing = min(gap * 1.6, (high - low) / max(1, count - 1)) if count > 1 else 0
    return [round(middle + spacing * (i - (count - 1) / 2)) for i in range(count)]


def _route(fig: Figure, panel: Panel, nodes: list[Node], edges: list[Edge],
           groups: list[Group]) -> None:
    ports: dict[tuple[str, str], _Port] = {}
    for edge in edges:
        u, v = fig.node(edge.source), fig.node(edge.target)
        su, sv = _sides(edge, u, v)
        ports[(edge.id, "source")] = _Port(edge, "source", u, su, v)
        ports[(edge.id, "target")] = _Port(edge, "target", v, sv, u)
    _assign_ports(fig, list(ports.values()))
    gpad = _group_pad(fig)
    margin = fig.font_size * 0.35
    gap = fig.font_size * 0.45

    def col_span(col: int) -> tuple[float, float]:
        members = [n for n in nodes if n.col == col]
        return min(n.extent[0] for n in members), max(n.extent[2] for n in members)

    def channel_span(channel: int) -> tuple[float, float]:
        above = [n for n in nodes if n.row == channel - 1]
        below = [n for n in nodes if n.row == channel]
        top = max((n.extent[3] for n in above), default=panel.content[1]) + gpad[2] + margin
        low = min((n.box[1] for n in below), default=panel.content[3]) - margin
        if any(g.rows[0] == channel for g in groups):
            low -= gpad[1]
        elif below:
            low -= gpad[2]
        return top, low

    by_gap: dict[int, list[Edge]] = {}
    by_channel: dict[int, list[Edge]] = {}
    for edge in edges:
        p0, p1 = ports[(edge.id, "source")].point, ports[(edge.id, "target")].point
        if edge.kind == "flow":
            if p0[1] == p1[1]:
                edge.points = [p0, p1]
            else:
                by_gap.setdefault(min(fig.node(edge.source).col, fig.node(edge.target).col),
                                  []).append(edge)
        elif edge.kind == "vertical":
            if p0[0] == p1[0]:
                edge.points = [p0, p1]
            else:
                edge.channel = max(fig.node(edge.source).row, fig.node(edge.target).row)
                by_channel.setdefault(edge.channel, []).append(edge)
        else:
            assert edge.channel is not None
            by_channel.setdefault(edge.channel, []).append(edge)
    def ends(edge: Edge) -> tuple[Point, Point]:
        return ports[(edge.id, "source")].point, ports[(edge.id, "target")].point

    for col, group in sorted(by_gap.items()):
        left, right = col_span(col)[1] + gpad[0] + margin, col_span(col + 1)[0] - gpad[0] - margin
        lanes = _lanes(left, right, len(group), gap)
        _best_order(group, lanes, lambda e, x: [ends(e)[0], (x, ends(e)[0][1]),
                                                (x, ends(e)[1][1]), ends(e)[1]], fig.font_size)
    for channel, group in sorted(by_channel.items()):
        top, low = channel_span(channel)
        lanes = _lanes(top, low, len(group), gap)
        _best_order(group, lanes, lambda e, y: [ends(e)[0], (ends(e)[0][0], y),
                                                (ends(e)[1][0], y), ends(e)[1]], fig.font_size)


def _best_order(group: list[Edge], lanes: list[float],
                path: Callable[[Edge, float], list[Point]], font_size: int) -> None:
    """Give each edge a lane, trying every order of small groups for the fewest conflicts."""
    orders = itertools.permutations(group) if len(group) <= 4 else [tuple(group)]
    best: tuple[int, list[list[Point]]] | None = None
    for order in orders:
        paths = [path(edge, lane) for edge, lane in zip(order, lanes, strict=True)]
        score = 0
        for i, a in enumerate(paths):
            for b in paths[i + 1:]:
                for s in segments(a):
                    for t in segments(b):
                        score += 10 * too_close(s, t, font_size * 0.35) + crossing(s, t)
        if best is None or score < best[0]:
            best = (score, [*paths])
            chosen = order
        if score == 0:
            break
    assert best is not None
    for edge, points in zip(chosen, best[1], strict=True):
        edge.points = points


def _group_pad(fig: Figure) -> tuple[float, float, float]:
    """Group padding: sides, top (room for the title) and bottom."""
    return (fig.font_size * 0.7, fig.small_size * 1.9 + fig.font_size * 0.3, fig.font_size * 0.5)


def _size_nodes(fig: Figure, measure: _Measure, preset: Preset, slot_w: float) -> None:
    f = fig.font_size
    for node in fig.nodes:
        node.font_size = f
        node.count = 0
        if node.shape == "circle":
            node.lines = [node.text]
            node.font_size = round(f * 1.15)
            node.w = node.h = float(round(f * 1.7))
            continue
        max_text = slot_w * 0.66 - (0 if node.label_below else f * 1.5)
        lines = None
        size = f
        while lines is None and size >= round(f * 0.7):
            lines = measure.wrap(node.text, size, max_text, preset.max_lines)
            if lines is None:
                size -= 1
        if lines is None:
            raise LayoutError(f"label {node.text!r} does not fit")
        node.lines, node.font_size = lines, size
        tw, th = measure.size(lines, size)
        if node.label_below:
            node.label_h = th
            if node.shape == "stack":
                node.count = 3 + len(node.text) % 3
                node.w = float(round(f * 2.6 + (node.count - 1) * f * 0.32))
                node.h = float(round(f * 3.0 + (node.count - 1) * f * 0.32))
            elif node.shape == "tokens":
                node.count = 4 + len(node.text) % 3
                node.w = float(round(node.count * f * 0.95 + (node.count + 1) * f * 0.22))
                node.h = float(round(f * 1.4))
            else:
                node.w, node.h = float(round(f * 3.4)), float(round(f * 3.0))
        else:
            node.w = float(round(max(tw + f * 1.5, f * 5.0)))
            node.h = float(round(th + f * 1.3))
        node.w += node.w % 2
        node.h += node.h % 2


def _position(fig: Figure, measure: _Measure) -> None:
    for node in fig.nodes:
        panel = fig.panels[node.panel]
        x0, y0, x1, y1 = panel.content
        sw, sh = (x1 - x0) / panel.cols, (y1 - y0) / panel.rows
        node.cx = float(round(x0 + (node.col + 0.5) * sw))
        node.cy = float(round(y0 + (node.row + 0.5) * sh))
        if node.label_below:
            centre = (node.cx, node.box[3] + fig.font_size * 0.3 + node.label_h / 2)
            node.text_box = measure.box(node.lines, node.font_size, "regular", centre)
        else:
            node.text_box = measure.box(node.lines, node.font_size, "regular", (node.cx, node.cy))


def _place_groups(fig: Figure, measure: _Measure) -> None:
    side, top, bottom = _group_pad(fig)
    for group in fig.groups:
        members = [fig.node(m) for m in group.members]
        col_nodes = [n for n in fig.nodes if n.panel == group.panel
                     and group.cols[0] <= n.col <= group.cols[1]]
        inner = union([n.extent for n in members])
        left = min(n.extent[0] for n in col_nodes)
        right = max(n.extent[2] for n in col_nodes)
        group.box = (round(left - side), round(inner[1] - top), round(right + side),
                     round(inner[3] + bottom))
        tw, th = measure.size([group.title], fig.small_size, "bold")
        centre = (group.box[0] + fig.font_size * 0.5 + tw / 2,
                  group.box[1] + fig.font_size * 0.25 + th / 2 + fig.small_size * 0.2)
        group.title_box = measure.box([group.title], fig.small_size, "bold", centre)


def _label_edges(rng: random.Random, fig: Figure, measure: _Measure, preset: Preset) -> None:
    budget = _pick(rng, preset.edge_labels)
    straight = [e for e in fig.edges if e.routing == "straight" and e.kind == "flow"]
    rng.shuffle(straight)
    for edge in straight[:budget]:
        text = rng.choice(words.EDGE_LABELS)
        (ax, ay), (bx, _by) = edge.points
        tw, th = measure.size([text], fig.small_size, "italic")
        if abs(bx - ax) < tw + fig.head_length * 3:
            continue
        centre = ((ax + bx) / 2, ay - fig.line_width - fig.small_size * 0.35 - th / 2)
        edge.label = text
        edge.label_box = measure.box([text], fig.small_size, "italic", centre)


# --- checks -------------------------------------------------------------------------------------


def _check(fig: Figure, preset: Preset) -> None:
    """Raise :class:`LayoutError` unless the figure reads unambiguously."""
    frame = (0.0, 0.0, float(fig.width), float(fig.height))
    space = fig.font_size * 0.3
    titles = [p.title_box for p in fig.panels if p.title_box] + [g.title_box for g in fig.groups]
    for node in fig.nodes:
        if not contains(grow(fig.panels[node.panel].box, -2), node.extent):
            raise LayoutError("node outside its panel")
        for box in titles:
            if overlaps(grow(node.extent, space), box):
                raise LayoutError("node under a title")
    for i, a in enumerate(fig.nodes):
        for b in fig.nodes[i + 1:]:
            if overlaps(grow(a.extent, space), b.extent):
                raise LayoutError("nodes overlap")
    for group in fig.groups:
        if not contains(grow(fig.panels[group.panel].content, space), group.box):
            raise LayoutError("group leaves its panel")
        for node in fig.nodes:
            inside = overlaps(grow(group.box, space), node.extent)
            if inside != (node.id in group.members):
                raise LayoutError("group boundary cuts a node")
            if node.id in group.members and not contains(group.box, grow(node.extent, space / 2)):
                raise LayoutError("member outside its group")
        for other in fig.groups:
            if other is not group and overlaps(grow(group.box, space), other.box):
                raise LayoutError("groups overlap")
    labels = [e.label_box for e in fig.edges if e.label_box]
    for box in labels + titles:
        if not contains(frame, box):
            raise LayoutError("text outside the image")
    for i, a in enumerate(labels):
        for b in labels[i + 1:]:
            if overlaps(grow(a, space), b):
                raise LayoutError("edge labels overlap")
        for node in fig.nodes:
            if overlaps(grow(a, space), node.extent):
                raise LayoutError("edge label over a node")
        for group in fig.groups:
            if overlaps(grow(a, space), group.box) and not contains(group.box, grow(a, space)):
                raise LayoutError("edge label on a group border")
    crossings = 0
    for i, edge in enumerate(fig.edges):
        if len(edge.points) < 2:
            raise LayoutError("unrouted edge")
        segs = list(segments(edge.points))
        if any(length(p, q) < 0.5 for p, q in segs[1:-1]):
            raise LayoutError("degenerate elbow")
        needs = fig.head_length * 1.6
        if length(*segs[-1]) < needs or (edge.bidirectional and length(*segs[0]) < needs):
            raise LayoutError("no room for an arrow head")
        tight = min(length(*segs[0]), length(*segs[-1])) < fig.font_size * 0.5
        if edge.routing == "elbow" and tight:
            raise LayoutError("elbow too tight")
        for p, q in segs:
            a, b = trimmed(p, q, 1.5, 1.5)
            for node in fig.nodes:
                hit = segment_hits_box(a, b, obstacle(node))
                if hit or segment_hits_box(a, b, grow(node.text_box, 2)):
                    raise LayoutError("edge through a node")
            for box in titles + [e.label_box for e in fig.edges if e.label_box and e is not edge]:
                if segment_hits_box(a, b, grow(box, 2)):
                    raise LayoutError("edge through a title or label")
            if edge.label_box and segment_hits_box(a, b, edge.label_box):
                raise LayoutError("edge through its own label")
            for group in fig.groups:
                x0, y0, x1, y1 = group.box
                border = [((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)), ((x0, y1), (x1, y1)),
                          ((x0, y0), (x0, y1))]
                if any(too_close((p, q), side, fig.font_size * 0.3) for side in border):
                    raise LayoutError("edge along a group border")
        for other in fig.edges[i + 1:]:
            for s in segs:
                for t in segments(other.points):
                    if too_close(s, t, fig.font_size * 0.35):
                        raise LayoutError("edges run together")
                    if crossing(s, t):
                        crossings += 1
    if crossings > preset.max_crossings:
        raise LayoutError("too many crossings")


# --- the whole figure ----------------------------------------------------------------------------


def generate(rng: random.Random, difficulty: Difficulty, fonts: FontSet,
             attempts: int = 400) -> Figure:
    """Draw a random figure for ``difficulty`` until one passes every check."""
    preset = PRESETS[difficulty]
    measure = _Measure(fonts)
    last = ""
    for _ in range(attempts):
        try:
            return _attempt(rng, preset, fonts, measure)
        except LayoutError as exc:
            last = str(exc)
    raise LayoutError(f"no valid {difficulty} layout in {attempts} attempts (last: {last})")


def _attempt(rng: random.Random, preset: Preset, fonts: FontSet, measure: _Measure) -> Figure:
    width = rng.randint(*preset.width)
    font = round(width * rng.uniform(0.0110, 0.0140))
    fig = Figure(
        width=width, height=0, fonts=fonts, font_size=font, title_size=round(font * 1.2),
        small_size=round(font * 0.82), line_width=max(2, round(font / 10)),
        head_length=round(font * 0.55), head_width=round(font * 0.45), radius=round(font * 0.35),
        panel_separator=rng.choice(("line", "tint", "none")),
    )
    margin = round(width * 0.02)
    n_panels = _pick(rng, preset.panels)
    cols = [_pick(rng, preset.cols) for _ in range(n_panels)]
    while sum(cols) > (width - 2 * margin) / (font * 10):  # each slot needs ~10 em
        widest = max(range(n_panels), key=lambda i: (cols[i], -i))
        if cols[widest] <= 2:
            raise LayoutError("too many columns for the width")
        cols[widest] -= 1
    titled = n_panels > 1 or rng.random() < preset.panel_title
    title_band = round(fig.title_size * 2.0) if titled else 0
    rows = _pick(rng, preset.rows)
    row_h = font * (rng.uniform(3.2, 4.4) + 1.2 * preset.max_lines) + _group_pad(fig)[1]
    # a realistic aspect ratio: a flat figure gets taller rows, a tall one fewer rows
    floor = round(width / rng.uniform(*preset.aspect))
    height = max(round(rows * row_h) + title_band + 2 * margin, floor)
    while rows > 1 and height > width / preset.aspect[0]:
        rows -= 1
        height = max(round(rows * row_h) + title_band + 2 * margin, floor)
    if height > width / preset.aspect[0]:
        raise LayoutError("too tall")
    fig.height = height
    gutter = round(width * 0.03) if n_panels > 1 else 0
    usable = width - 2 * margin - gutter * (n_panels - 1)
    x = margin
    titles = rng.sample(words.PANEL_TITLES, n_panels)
    for i, c in enumerate(cols):
        w = round(usable * c / sum(cols))
        title = None
        if titled:
            title = f"({chr(97 + i)}) {titles[i]}" if n_panels > 1 else titles[i]
        panel = Panel(index=i, title=title, cols=c, rows=rows,
                      box=(x, margin, x + w, height - margin),
                      content=(x, margin + title_band, x + w, height - margin))
        if title is not None:
            panel.title_box = measure.box([title], fig.title_size, "bold",
                                          (x + w / 2, margin + title_band * 0.4))
        if fig.panel_separator == "tint" and n_panels > 1:
            panel.fill = ("#F4F8FB", "#F6FAF3", "#FBF7F2")[i % 3]
        fig.panels.append(panel)
        x += w + gutter
    fig.nodes = _place_nodes(rng, preset, fig.panels)
    fig.edges = _make_edges(rng, preset, fig.panels, fig.nodes)
    _label_nodes(rng, preset, fig.nodes, fig.edges, fig.panels)
    palette = list(PALETTE)
    rng.shuffle(palette)
    roles = [*words.ROLE_ORDER, *GLYPH_SHAPES, "operator"]
    for node in fig.nodes:
        node.fill, node.stroke = palette[roles.index(node.role) % len(palette)]
        if node.shape == "tokens":
            node.colors = [palette[(i + 2) % len(palette)][0] for i in range(6)]
    fig.groups = _make_groups(rng, preset, fig.panels, fig.nodes)
    for group in fig.groups:
        group.stroke = rng.choice(("#666666", "#6C8EBF", "#82B366", "#B85450"))
        group.fill = rng.choice((None, "#FAFAFA", "#F3F7FC"))
    min_slot = min((p.content[2] - p.content[0]) / p.cols for p in fig.panels)
    _size_nodes(fig, measure, preset, min_slot)
    _position(fig, measure)
    _place_groups(fig, measure)
    for panel in fig.panels:
        _route(fig, panel, [n for n in fig.nodes if n.panel == panel.index],
               [e for e in fig.edges if fig.node(e.source).panel == panel.index],
               [g for g in fig.groups if g.panel == panel.index])
    for edge in fig.edges:
        backward = fig.node(edge.target).col < fig.node(edge.source).col
        if edge.dashed and edge.kind == "channel" and backward:
            edge.color = rng.choice(("#333333", "#B85450", "#6C8EBF"))
    _label_edges(rng, fig, measure, preset)
    _check(fig, preset)
    return fig
