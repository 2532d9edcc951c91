"""Random overview figures as exact geometry: titled panels, nodes on a grid, routed edges, groups.

A figure is generated, laid out and then checked (nothing overlaps, no edge runs through a box or
alongside another edge, arrow heads fit); a layout that fails a check is drawn again from the same
random stream, so a seed always yields the same figure. Coordinates are final-image pixels.
"""

from __future__ import annotations

import random
from dataclasses import replace

from refig_suite_sample import words
from refig_suite_sample.checks import check
from refig_suite_sample.difficulty import PRESETS, Difficulty, Preset
from refig_suite_sample.figure import GLYPH_SHAPES, PALETTE, Figure, LayoutError, Panel
from refig_suite_sample.fonts import FontSet
from refig_suite_sample.graph import label_nodes, make_edges, make_groups, pick, place_nodes
from refig_suite_sample.measure import Measure
from refig_suite_sample.placement import group_pad, label_edges, place_groups, position, size_nodes
from refig_suite_sample.routing import route


def generate(rng: random.Random, difficulty: Difficulty, fonts: FontSet,
             attempts: int = 400, width: tuple[int, int] | None = None) -> Figure:
    """Draw a random figure for ``difficulty`` until one passes every check; ``width``: the
    range its width is drawn from instead of the difficulty's (the layout scales with it)."""
    preset = PRESETS[difficulty] if width is None else replace(PRESETS[difficulty], width=width)
    measure = Measure(fonts)
    last = ""
    for _ in range(attempts):
        try:
            return _attempt(rng, preset, fonts, measure)
        except LayoutError as exc:
            last = str(exc)
    raise LayoutError(f"no valid {difficulty} layout in {attempts} attempts (last: {last})")


def _attempt(rng: random.Random, preset: Preset, fonts: FontSet, measure: Measure) -> Figure:
    width = rng.randint(*preset.width)
    font = round(width * rng.uniform(0.0110, 0.0140))
    fig = Figure(
        width=width, height=0, fonts=fonts, font_size=font, title_size=round(font * 1.2),
        small_size=round(font * 0.82), line_width=max(2, round(font / 10)),
        head_length=round(font * 0.55), head_width=round(font * 0.45), radius=round(font * 0.35),
        panel_separator=rng.choice(("line", "tint", "none")),
    )
    margin = round(width * 0.02)
    n_panels = pick(rng, preset.panels)
    cols = [pick(rng, preset.cols) for _ in range(n_panels)]
    while sum(cols) > (width - 2 * margin) / (font * 10):  # each slot needs ~10 em
        widest = max(range(n_panels), key=lambda i: (cols[i], -i))
        if cols[widest] <= 2:
            raise LayoutError("too many columns for the width")
        cols[widest] -= 1
    titled = n_panels > 1 or rng.random() < preset.panel_title
    title_band = round(fig.title_size * 2.0) if titled else 0
    rows = pick(rng, preset.rows)
    row_h = font * (rng.uniform(3.2, 4.4) + 1.2 * preset.max_lines) + group_pad(fig)[1]
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
    fig.nodes = place_nodes(rng, preset, fig.panels)
    fig.edges = make_edges(rng, preset, fig.panels, fig.nodes)
    label_nodes(rng, preset, fig.nodes, fig.edges, fig.panels)
    palette = list(PALETTE)
    rng.shuffle(palette)
    roles = [*words.ROLE_ORDER, *GLYPH_SHAPES, "operator"]
    for node in fig.nodes:
        node.fill, node.stroke = palette[roles.index(node.role) % len(palette)]
        if node.shape == "tokens":
            node.colors = [palette[(i + 2) % len(palette)][0] for i in range(6)]
    fig.groups = make_groups(rng, preset, fig.panels, fig.nodes)
    for group in fig.groups:
        group.stroke = rng.choice(("#666666", "#6C8EBF", "#82B366", "#B85450"))
        group.fill = rng.choice((None, "#FAFAFA", "#F3F7FC"))
    min_slot = min((p.content[2] - p.content[0]) / p.cols for p in fig.panels)
    size_nodes(fig, measure, preset, min_slot)
    position(fig, measure)
    place_groups(fig, measure)
    for panel in fig.panels:
        route(fig, panel, [n for n in fig.nodes if n.panel == panel.index],
               [e for e in fig.edges if fig.node(e.source).panel == panel.index],
               [g for g in fig.groups if g.panel == panel.index])
    for edge in fig.edges:
        backward = fig.node(edge.target).col < fig.node(edge.source).col
        if edge.dashed and edge.kind == "channel" and backward:
            edge.color = rng.choice(("#333333", "#B85450", "#6C8EBF"))
    label_edges(rng, fig, measure, preset)
    check(fig, preset)
    return fig
