"""Sizes and positions: nodes sized to their text and placed in their grid slots, groups around
their members, edge labels beside their edges."""

from __future__ import annotations

import random

from refig_suite_sample import words
from refig_suite_sample.difficulty import Preset
from refig_suite_sample.figure import Figure, LayoutError
from refig_suite_sample.geometry import (
    union,
)
from refig_suite_sample.graph import pick
from refig_suite_sample.measure import Measure


def group_pad(fig: Figure) -> tuple[float, float, float]:
    """Group padding: sides, top (room for the title) and bottom."""
    return (fig.font_size * 0.7, fig.small_size * 1.9 + fig.font_size * 0.3, fig.font_size * 0.5)


def size_nodes(fig: Figure, measure: Measure, preset: Preset, slot_w: float) -> None:
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


def position(fig: Figure, measure: Measure) -> None:
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


def place_groups(fig: Figure, measure: Measure) -> None:
    side, top, bottom = group_pad(fig)
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


def label_edges(rng: random.Random, fig: Figure, measure: Measure, preset: Preset) -> None:
    budget = pick(rng, preset.edge_labels)
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
