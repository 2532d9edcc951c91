"""The random graph of a figure: nodes on each panel's grid, edges between them, their labels
and roles, and groups of neighbouring nodes."""

from __future__ import annotations

import itertools
import random

from refig_suite_sample import words
from refig_suite_sample.difficulty import Preset
from refig_suite_sample.figure import GLYPH_SHAPES, Edge, Group, Node, Panel


def pick(rng: random.Random, span: tuple[int, int]) -> int:
    return rng.randint(span[0], span[1])


def place_nodes(rng: random.Random, preset: Preset, panels: list[Panel]) -> list[Node]:
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


def make_edges(rng: random.Random, preset: Preset, panels: list[Panel],
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
        skips = pick(rng, preset.skips)
        feedback = pick(rng, preset.feedback)
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


def label_nodes(rng: random.Random, preset: Preset, nodes: list[Node], edges: list[Edge],
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
    operator_budget = pick(rng, preset.operators)
    for node in nodes:
        if operator_budget > 0 and indegree[node.id] >= 2 and node.col > 0:
            node.shape, node.role, node.text = "circle", "operator", rng.choice(words.OPERATORS)
            operator_budget -= 1
    glyph_budget = pick(rng, preset.glyphs)
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


def make_groups(rng: random.Random, preset: Preset, panels: list[Panel],
                 nodes: list[Node]) -> list[Group]:
    groups: list[Group] = []
    wanted = pick(rng, preset.groups)
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
