"""Draws a laid-out :class:`Figure` with Pillow, supersampled and downscaled for anti-aliasing."""

from __future__ import annotations

import math

from PIL import Image, ImageDraw

from refig_suite_sample.figure import SCALE, Edge, Figure, Node, cylinder_cap, line_spacing
from refig_suite_sample.geometry import Box, Point, dashes, rounded_outline, trimmed

INK = "#1A1A1A"
BACKGROUND = "#FFFFFF"


def _s(value: float) -> float:
    return value * SCALE


def _sp(point: Point) -> tuple[float, float]:
    return (point[0] * SCALE, point[1] * SCALE)


def _sb(box: Box) -> tuple[float, float, float, float]:
    return (box[0] * SCALE, box[1] * SCALE, box[2] * SCALE, box[3] * SCALE)


def _darker(color: str, factor: float = 0.85) -> str:
    r, g, b = (int(color[i:i + 2], 16) for i in (1, 3, 5))
    return "#{:02X}{:02X}{:02X}".format(*(round(c * factor) for c in (r, g, b)))


class _Painter:
    def __init__(self, fig: Figure):
        self.fig = fig
        self.image = Image.new("RGB", (fig.width * SCALE, fig.height * SCALE), BACKGROUND)
        self.draw = ImageDraw.Draw(self.image)
        self.lw = fig.line_width * SCALE

    def polyline(self, points: list[Point], color: str, width: float, dashed: bool) -> None:
        scaled = [_sp(p) for p in points]
        if not dashed:
            self.draw.line(scaled, fill=color, width=round(width), joint="curve")
            return
        for dash in dashes(scaled, on=width * 3.2, off=width * 2.2):
            self.draw.line(dash, fill=color, width=round(width), joint="curve")

    def text(self, lines: list[str], size: int, face: str, centre: Point, color: str = INK) -> None:
        font = self.fig.fonts.get(size * SCALE, face)
        self.draw.multiline_text(_sp(centre), "\n".join(lines), font=font, fill=color,
                                 anchor="mm", align="center", spacing=line_spacing(size) * SCALE)

    def arrow_head(self, tip: Point, before: Point, color: str) -> None:
        dx, dy = tip[0] - before[0], tip[1] - before[1]
        d = math.hypot(dx, dy)
        ux, uy = dx / d, dy / d
        length, half = self.fig.head_length, self.fig.head_width / 2
        bx, by = tip[0] - ux * length, tip[1] - uy * length
        polygon = [tip, (bx - uy * half, by + ux * half), (bx + uy * half, by - ux * half)]
        self.draw.polygon([_sp(p) for p in polygon], fill=color)

    # --- parts -----------------------------------------------------------------------------------

    def panels(self) -> None:
        fig = self.fig
        for panel in fig.panels:
            if panel.fill:
                self.draw.rounded_rectangle(_sb(panel.box), radius=_s(fig.radius * 2),
                                            fill=panel.fill)
            if panel.title and panel.title_box:
                x0, y0, x1, y1 = panel.title_box
                self.text([panel.title], fig.title_size, "bold", ((x0 + x1) / 2, (y0 + y1) / 2))
        if fig.panel_separator == "line":
            for left, right in zip(fig.panels, fig.panels[1:], strict=False):
                x = (left.box[2] + right.box[0]) / 2
                self.draw.line([_sp((x, left.box[1])), _sp((x, left.box[3]))], fill="#9E9E9E",
                               width=max(2, round(self.lw * 0.6)))

    def groups(self) -> None:
        fig = self.fig
        for group in fig.groups:
            box = _sb(group.box)
            if group.fill:
                self.draw.rounded_rectangle(box, radius=_s(fig.radius * 1.5), fill=group.fill)
            outline = rounded_outline(box, _s(fig.radius * 1.5))
            for dash in dashes(outline, on=self.lw * 3.5, off=self.lw * 2.5):
                self.draw.line(dash, fill=group.stroke, width=round(self.lw * 0.9))
            x0, y0, x1, y1 = group.title_box
            self.text([group.title], fig.small_size, "bold", ((x0 + x1) / 2, (y0 + y1) / 2),
                      color=_darker(group.stroke, 0.8))

    def edge(self, edge: Edge) -> None:
        fig = self.fig
        points = list(edge.points)
        # stop the line under the arrow head so its tip stays sharp
        cut = fig.head_length * 0.8
        points[-2:] = trimmed(points[-2], points[-1], 0, cut)
        if edge.bidirectional:
            points[:2] = trimmed(points[0], points[1], cut, 0)
        self.polyline(points, edge.color, self.lw, edge.dashed)
        self.arrow_head(edge.points[-1], edge.points[-2], edge.color)
        if edge.bidirectional:
            self.arrow_head(edge.points[0], edge.points[1], edge.color)
        if edge.label and edge.label_box:
            x0, y0, x1, y1 = edge.label_box
            self.text([edge.label], fig.small_size, "italic", ((x0 + x1) / 2, (y0 + y1) / 2),
                      color="#444444")

    def node(self, node: Node) -> None:
        fig = self.fig
        box = _sb(node.box)
        width = round(self.lw * 0.9)
        if node.shape in ("rounded", "box"):
            radius = _s(fig.radius) if node.shape == "rounded" else 0
            self.draw.rounded_rectangle(box, radius=radius, fill=node.fill, outline=node.stroke,
                                        width=width)
            self.text(node.lines, node.font_size, "regular", (node.cx, node.cy))
            return
        if node.shape == "circle":
            self.draw.ellipse(box, fill=node.fill, outline=node.stroke, width=width)
            self.text(node.lines, node.font_size, "bold", (node.cx, node.cy))
            return
        if node.shape == "stack":
            self._stack(node, width)
        elif node.shape == "tokens":
            self._tokens(node, width)
        else:
            self._cylinder(node, width)
        x0, y0, x1, y1 = node.text_box
        self.text(node.lines, node.font_size, "regular", ((x0 + x1) / 2, (y0 + y1) / 2))

    def _stack(self, node: Node, width: int) -> None:
        x0, y0, x1, y1 = _sb(node.box)
        step = _s(self.fig.font_size * 0.32)
        n = node.count
        side_w, side_h = (x1 - x0) - step * (n - 1), (y1 - y0) - step * (n - 1)
        for i in range(n - 1, -1, -1):  # back to front
            left, top = x0 + step * i, y1 - side_h - step * i
            fill = node.fill if i % 2 == 0 else _darker(node.fill, 0.93)
            self.draw.rectangle((left, top, left + side_w, top + side_h), fill=fill,
                                outline=node.stroke, width=width)

    def _tokens(self, node: Node, width: int) -> None:
        x0, y0, x1, y1 = _sb(node.box)
        f = _s(self.fig.font_size)
        self.draw.rounded_rectangle((x0, y0, x1, y1), radius=_s(self.fig.radius), fill="#FAFAFA",
                                    outline=node.stroke, width=width)
        size, pad = f * 0.95, f * 0.22
        top = (y0 + y1) / 2 - size / 2
        for i in range(node.count):
            left = x0 + pad + i * (size + pad)
            self.draw.rectangle((left, top, left + size, top + size),
                                fill=node.colors[i % len(node.colors)], outline=node.stroke,
                                width=max(1, width // 2))

    def _cylinder(self, node: Node, width: int) -> None:
        x0, y0, x1, y1 = _sb(node.box)
        cap = _s(cylinder_cap(node))
        self.draw.rectangle((x0, y0 + cap, x1, y1 - cap), fill=node.fill)
        self.draw.ellipse((x0, y1 - 2 * cap, x1, y1), fill=node.fill, outline=node.stroke,
                          width=width)
        self.draw.rectangle((x0 + width, y0 + cap, x1 - width, y1 - cap), fill=node.fill)
        self.draw.line([(x0 + width / 2, y0 + cap), (x0 + width / 2, y1 - cap)],
                       fill=node.stroke, width=width)
        self.draw.line([(x1 - width / 2, y0 + cap), (x1 - width / 2, y1 - cap)],
                       fill=node.stroke, width=width)
        self.draw.ellipse((x0, y0, x1, y0 + 2 * cap), fill=_darker(node.fill, 0.95),
                          outline=node.stroke, width=width)


def render(fig: Figure) -> Image.Image:
    """The figure as an RGB image of ``fig.width`` x ``fig.height`` pixels."""
    painter = _Painter(fig)
    painter.panels()
    painter.groups()
    for edge in fig.edges:
        painter.edge(edge)
    for node in fig.nodes:
        painter.node(node)
    return painter.image.resize((fig.width, fig.height), Image.Resampling.LANCZOS)
