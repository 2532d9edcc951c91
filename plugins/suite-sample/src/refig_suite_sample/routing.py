"""Edge routing: ports on the node sides, then orthogonal lanes between columns, ordered so
that edges cross as little as possible."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass

from refig_suite_sample.figure import Edge, Figure, Group, LayoutError, Node, Panel, cylinder_cap
from refig_suite_sample.geometry import (
    Point,
    crossing,
    segments,
    too_close,
)
from refig_suite_sample.placement import group_pad


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


def route(fig: Figure, panel: Panel, nodes: list[Node], edges: list[Edge],
           groups: list[Group]) -> None:
    ports: dict[tuple[str, str], _Port] = {}
    for edge in edges:
        u, v = fig.node(edge.source), fig.node(edge.target)
        su, sv = _sides(edge, u, v)
        ports[(edge.id, "source")] = _Port(edge, "source", u, su, v)
        ports[(edge.id, "target")] = _Port(edge, "target", v, sv, u)
    _assign_ports(fig, list(ports.values()))
    gpad = group_pad(fig)
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
