"""The checks a laid-out figure must pass to read unambiguously; a failure raises LayoutError."""

from __future__ import annotations

from refig_suite_sample.difficulty import Preset
from refig_suite_sample.figure import Figure, LayoutError, obstacle
from refig_suite_sample.geometry import (
    contains,
    crossing,
    grow,
    length,
    overlaps,
    segment_hits_box,
    segments,
    too_close,
    trimmed,
)


def check(fig: Figure, preset: Preset) -> None:
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
