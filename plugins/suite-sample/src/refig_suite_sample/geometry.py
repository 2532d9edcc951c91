"""Plain geometry on axis-aligned boxes and polylines, in figure pixels."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence

Box = tuple[float, float, float, float]
Point = tuple[float, float]


def union(boxes: Sequence[Box]) -> Box:
    """The smallest box holding every box."""
    return (min(b[0] for b in boxes), min(b[1] for b in boxes),
            max(b[2] for b in boxes), max(b[3] for b in boxes))


def grow(box: Box, dx: float, dy: float | None = None) -> Box:
    """``box`` enlarged by ``dx`` horizontally and ``dy`` (default ``dx``) vertically."""
    dy = dx if dy is None else dy
    return (box[0] - dx, box[1] - dy, box[2] + dx, box[3] + dy)


def overlaps(a: Box, b: Box) -> bool:
    """True when the two boxes share interior area."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def contains(outer: Box, inner: Box) -> bool:
    return (outer[0] <= inner[0] and outer[1] <= inner[1]
            and inner[2] <= outer[2] and inner[3] <= outer[3])


def segment_hits_box(p: Point, q: Point, box: Box) -> bool:
    """True when the segment ``pq`` passes through the interior of ``box`` (Liang-Barsky clip)."""
    x0, y0, x1, y1 = box
    dx, dy = q[0] - p[0], q[1] - p[1]
    t0, t1 = 0.0, 1.0
    for pk, qk in ((-dx, p[0] - x0), (dx, x1 - p[0]), (-dy, p[1] - y0), (dy, y1 - p[1])):
        if pk == 0:
            if qk <= 0:
                return False
            continue
        t = qk / pk
        if pk < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 >= t1:
            return False
    return True


def segments(points: Sequence[Point]) -> Iterator[tuple[Point, Point]]:
    return itertools.pairwise(points)


def length(p: Point, q: Point) -> float:
    return math.hypot(q[0] - p[0], q[1] - p[1])


def trimmed(p: Point, q: Point, start: float, end: float) -> tuple[Point, Point]:
    """The segment ``pq`` shortened by ``start`` pixels at ``p`` and ``end`` pixels at ``q``."""
    d = length(p, q)
    if d == 0:
        return p, q
    ux, uy = (q[0] - p[0]) / d, (q[1] - p[1]) / d
    return (p[0] + ux * start, p[1] + uy * start), (q[0] - ux * end, q[1] - uy * end)


def crossing(a: tuple[Point, Point], b: tuple[Point, Point]) -> bool:
    """True when two axis-parallel segments cross at a point inside both (not at their ends)."""
    (_ax0, ay0), (_ax1, ay1) = a
    (_bx0, by0), (_bx1, by1) = b
    a_h, b_h = ay0 == ay1, by0 == by1
    if a_h == b_h:
        return False
    h, v = (a, b) if a_h else (b, a)
    hx0, hx1 = sorted((h[0][0], h[1][0]))
    vy0, vy1 = sorted((v[0][1], v[1][1]))
    x, y = v[0][0], h[0][1]
    return hx0 < x < hx1 and vy0 < y < vy1


def too_close(a: tuple[Point, Point], b: tuple[Point, Point], gap: float) -> bool:
    """True when two parallel axis-aligned segments run alongside each other within ``gap``."""
    (ax0, ay0), (ax1, ay1) = a
    (bx0, by0), (bx1, by1) = b
    if ay0 == ay1 and by0 == by1:  # both horizontal
        lo, hi = max(min(ax0, ax1), min(bx0, bx1)), min(max(ax0, ax1), max(bx0, bx1))
        return abs(ay0 - by0) < gap and hi - lo > 0
    if ax0 == ax1 and bx0 == bx1:  # both vertical
        lo, hi = max(min(ay0, ay1), min(by0, by1)), min(max(ay0, ay1), max(by0, by1))
        return abs(ax0 - bx0) < gap and hi - lo > 0
    return False


def rounded_outline(box: Box, radius: float, steps: int = 10) -> list[Point]:
    """The closed outline of a rounded rectangle as a polyline (for dashing)."""
    x0, y0, x1, y1 = box
    r = min(radius, (x1 - x0) / 2, (y1 - y0) / 2)
    corners = ((x1 - r, y0 + r, -90), (x1 - r, y1 - r, 0), (x0 + r, y1 - r, 90),
               (x0 + r, y0 + r, 180))
    points: list[Point] = [(x0 + r, y0)]
    for cx, cy, start in corners:
        for i in range(steps + 1):
            angle = math.radians(start + 90 * i / steps)
            points.append((cx + r * math.cos(angle), cy + r * math.sin(angle)))
    points.append((x0 + r, y0))
    return points


def dashes(points: Sequence[Point], on: float, off: float) -> Iterator[list[Point]]:
    """Split a polyline into dash polylines of ``on`` pixels separated by ``off`` pixels."""
    current: list[Point] = [points[0]]
    drawing, left = True, on
    for p, q in segments(points):
        d = length(p, q)
        pos = 0.0
        while d - pos > left:
            pos += left
            t = pos / d
            point = (p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t)
            if drawing:
                current.append(point)
                yield current
            current = [point]
            drawing = not drawing
            left = on if drawing else off
        left -= d - pos
        if drawing:
            current.append(q)
        else:
            current = [q]
    if drawing and len(current) > 1:
        yield current
