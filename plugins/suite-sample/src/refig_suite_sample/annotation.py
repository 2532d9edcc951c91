"""The exact annotation of a generated figure (schema ``refig.figure-annotation/1``)."""

from __future__ import annotations

import math
from typing import Any

from refig_suite_sample.figure import Figure
from refig_suite_sample.geometry import Box, Point

SCHEMA = "refig.figure-annotation/1"


def _box(box: Box | None) -> list[int] | None:
    """Pixel box ``[x0, y0, x1, y1]``, rounded outwards to whole pixels."""
    if box is None:
        return None
    return [math.floor(box[0]), math.floor(box[1]), math.ceil(box[2]), math.ceil(box[3])]


def _point(point: Point) -> list[float]:
    return [round(point[0], 1), round(point[1], 1)]


def annotate(fig: Figure, generator: dict[str, Any]) -> dict[str, Any]:
    """Nodes, directed edges and groups exactly as :func:`.draw.render` drew them."""
    panel_ids = {p.index: p.id for p in fig.panels}
    return {
        "schema": SCHEMA,
        "generator": generator,
        "image": {"width": fig.width, "height": fig.height},
        "font": {"family": fig.fonts.family, "size": fig.font_size},
        "panels": [
            {"id": p.id, "title": p.title, "box": _box(p.box), "title_box": _box(p.title_box)}
            for p in fig.panels
        ],
        "nodes": [
            {
                "id": n.id, "text": n.text, "lines": n.lines, "shape": n.shape,
                "role": n.role, "box": _box(n.box), "text_box": _box(n.text_box),
                "panel": panel_ids[n.panel], "fill": n.fill, "stroke": n.stroke,
            }
            for n in fig.nodes
        ],
        "edges": [
            {
                "id": e.id, "source": e.source, "target": e.target,
                "style": "dashed" if e.dashed else "solid", "bidirectional": e.bidirectional,
                "routing": e.routing, "heads": ["start", "end"] if e.bidirectional else ["end"],
                "points": [_point(p) for p in e.points], "color": e.color, "label": e.label,
                "label_box": _box(e.label_box),
            }
            for e in fig.edges
        ],
        "groups": [
            {
                "id": g.id, "title": g.title, "members": g.members, "box": _box(g.box),
                "title_box": _box(g.title_box), "style": "dashed", "panel": panel_ids[g.panel],
            }
            for g in fig.groups
        ],
    }
