"""Topology of a slide against a figure annotation: which nodes and directed edges it draws.

1. The slide is mapped into the figure's pixel frame: first by fitting the slide onto the figure
   (uniform scale, centred), then refined by least squares on labels that match almost exactly.
2. Text shapes are matched one-to-one to annotated nodes by an optimal assignment
   (:func:`scipy.optimize.linear_sum_assignment`) on 0.7 x text similarity (rapidfuzz) + 0.3 x
   position similarity; a pair needs text similarity >= 0.6 (one- and two-character labels such as
   operators need the same text and a nearby position).
3. Each link (connector, line shape, block arrow) is resolved to a node at each end: through its
   ``stCxn``/``endCxn`` binding when it names a matched shape (or a bare shape beside or under
   one), else the matched node whose box lies nearest its end point, within 4% of the diagonal.
4. Links are assigned one-to-one to annotated edges between the same two nodes, preferring a link
   that points the right way; the rest of the numbers follow (see :class:`Result`).
"""

from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from rapidfuzz import fuzz
from refig_toolkit_pptx import ObjectTree

from refig_metric_topology.slide import (
    Box,
    Link,
    Point,
    TextShape,
    links,
    shapes_by_id,
    text_shapes,
)

TEXT_WEIGHT, POSITION_WEIGHT = 0.7, 0.3
MIN_TEXT = 0.6
ANCHOR_TEXT = 0.92
POSITION_SCALE = 0.3  # position similarity reaches 0 at 30% of the diagonal
END_TOLERANCE = 0.04  # a free end within 4% of the diagonal of a node box touches it


class AnnotationError(ValueError):
    """An annotation without the nodes and edges this metric needs."""


@dataclass(frozen=True)
class Node:
    id: str
    text: str
    box: Box


@dataclass(frozen=True)
class Edge:
    id: str
    source: str
    target: str
    dashed: bool
    bidirectional: bool


@dataclass(frozen=True)
class Annotation:
    width: float
    height: float
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]

    @property
    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)



def _assign(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The assignment of rows to columns with the largest total score (Hungarian method)."""
    from scipy.optimize import linear_sum_assignment  # here: scipy costs a second to import

    return linear_sum_assignment(scores, maximize=True)

def parse(annotation: dict[str, Any]) -> Annotation:
    """The nodes and edges of a ``refig.figure-annotation/1`` document."""
    try:
        nodes = tuple(
            Node(str(n["id"]), str(n.get("text", "")), tuple(map(float, n["box"])))
            for n in annotation["nodes"]
        )
        ids = {n.id for n in nodes}
        edges = tuple(
            Edge(
                str(e.get("id", i)),
                str(e["source"]),
                str(e["target"]),
                e.get("style", "solid") == "dashed",
                bool(e.get("bidirectional", False)),
            )
            for i, e in enumerate(annotation.get("edges", ()))
        )
        for node in nodes:
            if len(node.box) != 4 or not all(math.isfinite(v) for v in node.box):
                raise ValueError(f"node {node.id} has no box [x0, y0, x1, y1] of numbers")
        image = annotation.get("image") or {}
        boxes = [n.box for n in nodes]
        width = float(image.get("width") or max((b[2] for b in boxes), default=1.0))
        height = float(image.get("height") or max((b[3] for b in boxes), default=1.0))
    except (KeyError, TypeError, ValueError) as exc:
        raise AnnotationError(f"not a figure annotation: {exc!r}") from exc
    if not (math.isfinite(width) and math.isfinite(height) and width > 0 and height > 0):
        raise AnnotationError(f"the figure size {width} x {height} is not positive")
    for edge in edges:
        if edge.source not in ids or edge.target not in ids:
            raise AnnotationError(f"edge {edge.id} names an unknown node")
    return Annotation(width, height, nodes, edges)


# --- the frame ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Frame:
    """Slide EMU to figure pixels, per axis: ``x' = ax * x + bx``."""

    ax: float
    bx: float
    ay: float
    by: float

    @classmethod
    def fit(cls, slide_w: float, slide_h: float, width: float, height: float) -> Frame:
        """The figure fitted inside the slide, centred, as agents usually place it."""
        scale = min(slide_w / width, slide_h / height)  # EMU per pixel
        off_x, off_y = (slide_w - width * scale) / 2, (slide_h - height * scale) / 2
        return cls(1 / scale, -off_x / scale, 1 / scale, -off_y / scale)

    def point(self, p: Point) -> Point:
        return (self.ax * p[0] + self.bx, self.ay * p[1] + self.by)

    def box(self, b: Box) -> Box:
        x0, y0 = self.point((b[0], b[1]))
        x1, y1 = self.point((b[2], b[3]))
        return (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))

    def refined(self, pairs: list[tuple[Point, Point]], width: float, height: float) -> Frame:
        """Least squares on ``(slide point, figure point)`` pairs, per axis with enough spread."""
        ax, bx, ay, by = self.ax, self.bx, self.ay, self.by
        if len(pairs) >= 2:
            slide = np.array([p for p, _ in pairs])
            figure = np.array([q for _, q in pairs])
            for axis, extent in ((0, width), (1, height)):
                if np.ptp(figure[:, axis]) < 0.05 * extent or np.ptp(slide[:, axis]) == 0:
                    continue
                a, b = np.polyfit(slide[:, axis], figure[:, axis], 1)
                if a > 0:
                    ax, bx = (a, b) if axis == 0 else (ax, bx)
                    ay, by = (a, b) if axis == 1 else (ay, by)
        return Frame(float(ax), float(bx), float(ay), float(by))


def _centre(b: Box) -> Point:
    return ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)


def _gap(a: Box, b: Box) -> float:
    """Distance between two boxes (0 when they touch or overlap)."""
    dx = max(b[0] - a[2], 0.0, a[0] - b[2])
    dy = max(b[1] - a[3], 0.0, a[1] - b[3])
    return math.hypot(dx, dy)


def normalise(text: str) -> str:
    """Case-folded, NFKC, hyphenated line breaks joined, whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text).casefold().replace("-\n", "-")
    return " ".join(text.split())


def text_similarity(a: str, b: str) -> float:
    a, b = normalise(a), normalise(b)
    if not a or not b:
        return 0.0
    return max(fuzz.ratio(a, b), fuzz.token_sort_ratio(a, b)) / 100


# --- matching -----------------------------------------------------------------------------------


@dataclass
class Result:
    """Numbers and the evidence behind them."""

    values: dict[str, float | None]
    counts: dict[str, int] = field(default_factory=dict)
    nodes: dict[str, dict[str, Any]] = field(default_factory=dict)
    edges: dict[str, dict[str, Any]] = field(default_factory=dict)
    links: list[dict[str, Any]] = field(default_factory=list)


def _match_nodes(
    ann: Annotation, shapes: list[TextShape], frame: Frame
) -> tuple[dict[str, int], dict[str, float]]:
    """Node id -> index of its text shape, and each matched node's text similarity."""
    if not shapes or not ann.nodes:
        return {}, {}
    sims = np.array([[text_similarity(n.text, s.text) for s in shapes] for n in ann.nodes])
    score = np.zeros_like(sims)
    allowed = np.zeros_like(sims, dtype=bool)
    for i, node in enumerate(ann.nodes):
        short = len(normalise(node.text)) <= 2
        centre = _centre(node.box)
        for j, shape in enumerate(shapes):
            distance = math.dist(centre, _centre(frame.box(shape.box))) / ann.diagonal
            position = max(0.0, 1 - distance / POSITION_SCALE)
            score[i, j] = TEXT_WEIGHT * sims[i, j] + POSITION_WEIGHT * position
            allowed[i, j] = (
                (sims[i, j] == 1.0 and position >= 0.5) if short else (sims[i, j] >= MIN_TEXT)
            )
    rows, cols = _assign(np.where(allowed, score, -1.0))
    matched = {ann.nodes[i].id: int(j) for i, j in zip(rows, cols, strict=True) if allowed[i, j]}
    return matched, {
        ann.nodes[i].id: float(sims[i, j]) for i, j in zip(rows, cols, strict=True) if allowed[i, j]
    }


def _anchored_frame(ann: Annotation, shapes: list[TextShape], frame: Frame) -> Frame:
    """Refine the frame on labels that occur once in both and match almost exactly."""
    pairs = []
    for node in ann.nodes:
        if len(normalise(node.text)) <= 2:
            continue
        hits = [s for s in shapes if text_similarity(node.text, s.text) >= ANCHOR_TEXT]
        twins = [n for n in ann.nodes if text_similarity(n.text, node.text) >= ANCHOR_TEXT]
        if len(hits) == 1 and len(twins) == 1:
            pairs.append((_centre(hits[0].box), _centre(node.box)))
    return frame.refined(pairs, ann.width, ann.height)


class _Resolver:
    """Finds the node each end of a link touches."""

    def __init__(
        self,
        ann: Annotation,
        shapes: list[TextShape],
        matched: dict[str, int],
        frame: Frame,
        bound: dict[int, Box],
    ):
        self.frame = frame
        self.tolerance = END_TOLERANCE * ann.diagonal
        self.node_boxes = {node: frame.box(shapes[j].box) for node, j in matched.items()}
        self.by_shape = {
            shapes[j].id: node for node, j in matched.items() if shapes[j].id is not None
        }
        self.bound = bound

    def node(self, point: Point, binding: Any) -> tuple[str | None, str]:
        """The node at a link end and how it was found (``binding`` or ``nearest``)."""
        if binding is not None:
            if binding.shape_id in self.by_shape:
                return self.by_shape[binding.shape_id], "binding"
            box = self.bound.get(binding.shape_id)
            if box is not None:  # a bare shape bound under, around or beside a matched label
                node = self._nearest(self.frame.box(box))
                if node is not None:
                    return node, "binding"
        p = self.frame.point(point)
        node = self._nearest((p[0], p[1], p[0], p[1]))
        return (node, "nearest") if node is not None else (None, "none")

    def _nearest(self, box: Box) -> str | None:
        """The matched node whose box lies nearest ``box``, within the tolerance."""
        best = min(
            self.node_boxes.items(),
            key=lambda kv: (_gap(box, kv[1]), math.dist(_centre(box), _centre(kv[1]))),
            default=None,
        )
        if best is not None and _gap(box, best[1]) <= self.tolerance:
            return best[0]
        return None


def _orientation(edge: Edge, link: Link, u: str, v: str) -> str:
    """How a link joining the edge's two nodes draws it: forward, reversed or undirected."""
    forward_end = v == edge.target  # the link's end lies at the edge's target
    heads_at_target = link.end_head if forward_end else link.start_head
    heads_at_source = link.start_head if forward_end else link.end_head
    if not (heads_at_target or heads_at_source):
        return "undirected"
    if edge.bidirectional or heads_at_target:
        return "forward"
    return "reversed"


def score(tree: ObjectTree, annotation: dict[str, Any]) -> Result:
    """Match a slide's object tree to an annotation and compute the topology numbers."""
    ann = parse(annotation)
    shapes = text_shapes(tree)
    frame = Frame.fit(tree.slide_width, tree.slide_height, ann.width, ann.height)
    frame = _anchored_frame(ann, shapes, frame)
    matched, sims = _match_nodes(ann, shapes, frame)
    resolver = _Resolver(ann, shapes, matched, frame, shapes_by_id(tree))
    result = Result(values={})
    for node in ann.nodes:
        j = matched.get(node.id)
        result.nodes[node.id] = {
            "text": node.text,
            "shape_id": shapes[j].id if j is not None else None,
            "similarity": round(sims.get(node.id, 0.0), 3),
        }
    resolved: list[tuple[Link, str | None, str | None]] = []
    for link in links(tree):
        u, how_u = resolver.node(link.start, link.start_binding)
        v, how_v = resolver.node(link.end, link.end_binding)
        resolved.append((link, u, v))
        result.links.append(
            {
                "id": link.id,
                "name": link.name,
                "start": u,
                "end": v,
                "found_by": [how_u, how_v],
                "heads": [link.start_head, link.end_head],
                "dashed": link.dashed,
            }
        )
    candidates = [i for i, (_, u, v) in enumerate(resolved) if u and v and u != v]
    weights = {"forward": 3.0, "undirected": 1.0, "reversed": 1.0}
    outcome = np.zeros((len(ann.edges), len(resolved)))
    kinds: dict[tuple[int, int], str] = {}
    for i, edge in enumerate(ann.edges):
        for j in candidates:
            link, u, v = resolved[j]
            if {u, v} == {edge.source, edge.target}:
                kind = _orientation(edge, link, u or "", v or "")
                kinds[(i, j)] = kind
                outcome[i, j] = weights[kind]
    assigned: dict[int, int] = {}
    if ann.edges and resolved:
        rows, cols = _assign(outcome)
        assigned = {int(i): int(j) for i, j in zip(rows, cols, strict=True) if outcome[i, j] > 0}
    counts = {"forward": 0, "reversed": 0, "undirected": 0}
    dashed_ok, bidir_ok, both_ok = [], [], []
    for i, edge in enumerate(ann.edges):
        j = assigned.get(i)
        entry: dict[str, Any] = {"source": edge.source, "target": edge.target, "drawn": "missing"}
        if j is not None:
            link = resolved[j][0]
            kind = kinds[(i, j)]
            counts[kind] += 1
            bidirectional = link.start_head and link.end_head
            dashed_ok.append(link.dashed == edge.dashed)
            bidir_ok.append(bidirectional == edge.bidirectional)
            both_ok.append(dashed_ok[-1] and bidir_ok[-1])
            entry |= {
                "drawn": kind,
                "link": link.id,
                "dashed": link.dashed,
                "bidirectional": bidirectional,
            }
        result.edges[edge.id] = entry
    n_edges = len(ann.edges)
    recall = counts["forward"] / n_edges if n_edges else None
    precision = counts["forward"] / len(candidates) if candidates else (0.0 if n_edges else None)
    f1 = None
    if recall is not None and precision is not None:
        f1 = 2 * recall * precision / (recall + precision) if recall + precision else 0.0

    def share(values: list[bool]) -> float | None:
        return sum(values) / len(values) if values else None

    result.values = {
        "node_recall": len(matched) / len(ann.nodes) if ann.nodes else None,
        "edge_recall": recall,
        "edge_precision": precision,
        "edge_f1": f1,
        "reversed_share": counts["reversed"] / n_edges if n_edges else None,
        "undirected_share": counts["undirected"] / n_edges if n_edges else None,
        "style_agreement": share(both_ok),
        "dashed_agreement": share(dashed_ok),
        "bidirectional_agreement": share(bidir_ok),
    }
    result.counts = {
        "nodes": len(ann.nodes),
        "matched_nodes": len(matched),
        "edges": n_edges,
        "links": len(resolved),
        "node_links": len(candidates),
        **counts,
    }
    return result
