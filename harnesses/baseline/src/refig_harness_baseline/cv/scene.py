"""What the cv baseline finds in a figure, in working-image pixels (before slide units)."""

from __future__ import annotations

from dataclasses import dataclass, field

RGB = tuple[int, int, int]

#: Connection sites of a rectangle-like shape, as python-pptx numbers them.
SITES = {"top": 0, "left": 1, "bottom": 2, "right": 3}
#: An ellipse (DrawingML preset ``ellipse``) has eight, counter-clockwise from the top.
ELLIPSE_SITES = {"top": 0, "left": 2, "bottom": 4, "right": 6}


@dataclass
class Rect:
    """An axis-aligned box in working pixels."""

    x: float
    y: float
    w: float
    h: float

    @property
    def x1(self) -> float:
        return self.x + self.w

    @property
    def y1(self) -> float:
        return self.y + self.h

    @property
    def area(self) -> float:
        return max(0.0, self.w) * max(0.0, self.h)

    @property
    def center(self) -> tuple[float, float]:
        return self.x + self.w / 2, self.y + self.h / 2

    def contains(self, other: Rect, slack: float = 0.0) -> bool:
        return (other.x >= self.x - slack and other.y >= self.y - slack
                and other.x1 <= self.x1 + slack and other.y1 <= self.y1 + slack)

    def iou(self, other: Rect) -> float:
        ix = max(0.0, min(self.x1, other.x1) - max(self.x, other.x))
        iy = max(0.0, min(self.y1, other.y1) - max(self.y, other.y))
        inter = ix * iy
        union = self.area + other.area - inter
        return inter / union if union > 0 else 0.0

    def edge_distance(self, x: float, y: float) -> tuple[float, str]:
        """Distance from a point to this box's outline, and the nearest side."""
        dx = max(self.x - x, 0.0, x - self.x1)
        dy = max(self.y - y, 0.0, y - self.y1)
        sides = {"left": abs(x - self.x), "right": abs(x - self.x1),
                 "top": abs(y - self.y), "bottom": abs(y - self.y1)}
        if dx == 0 and dy == 0:  # inside: the nearest side
            side = min(sides, key=lambda s: sides[s])
            return sides[side], side
        if dx > dy:
            return (dx**2 + dy**2) ** 0.5, "left" if x < self.x else "right"
        return (dx**2 + dy**2) ** 0.5, "top" if y < self.y else "bottom"


@dataclass
class TextLine:
    """One OCR line: its text, box and colour."""

    text: str
    rect: Rect
    color: RGB = (0, 0, 0)
    size_px: float = 12.0


@dataclass
class Box:
    """A detected shape: rectangle, rounded rectangle or ellipse, with its styling and text."""

    rect: Rect
    geometry: str = "rect"  # rect | roundRect | ellipse
    fill: RGB | None = None
    line: RGB | None = None
    line_px: float = 1.0
    dashed: bool = False
    radius: float = 0.0  # corner radius / shorter side, for roundRect
    texts: list[TextLine] = field(default_factory=list)
    children: int = 0


@dataclass
class Link:
    """A detected line or arrow; ``start_target``/``end_target`` index the scene's shapes."""

    start: tuple[float, float]
    end: tuple[float, float]
    elbow: bool = False
    head_start: bool = False
    head_end: bool = False
    color: RGB = (0, 0, 0)
    width_px: float = 1.5
    dashed: bool = False
    start_target: int | None = None
    start_site: str | None = None
    end_target: int | None = None
    end_site: str | None = None


@dataclass
class Scene:
    """Everything found: shapes (boxes, then standalone text boxes) and links between them."""

    width: int
    height: int
    background: RGB
    boxes: list[Box] = field(default_factory=list)
    labels: list[TextLine] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
