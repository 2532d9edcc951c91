"""Skeleton into chains: branches cut at junctions, paired where they continue one another (so
crossing lines pass through), and followed from pair to pair into one chain per drawn line."""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass, field

import cv2
import numpy as np

from refig_harness_baseline.cv.strokes import disk, neighbours

#: The 8 neighbours of a pixel, 4-neighbours first so a walk turns corners pixel by pixel.
STEPS = ((0, 1), (1, 0), (0, -1), (-1, 0), (1, 1), (1, -1), (-1, 1), (-1, -1))
#: Two branch ends at a junction continue one another when their directions are this opposite.
STRAIGHT = -np.cos(np.radians(40))


@dataclass(eq=False)
class End:
    """One end of a chain: its point, the unit direction leaving the chain there, the junction
    it stops at (a T) if any, and the arrow head it carries (its label and tip) if any."""

    point: np.ndarray
    out: np.ndarray
    junction: int | None = None
    head: int | None = None
    tip: np.ndarray | None = None

    @property
    def at(self) -> tuple[float, float]:
        p = self.tip if self.tip is not None else self.point
        return float(p[0]), float(p[1])


@dataclass(eq=False)
class Chain:
    """A traced line: ordered skeleton points (x, y) from ``ends[0]`` to ``ends[1]``."""

    points: np.ndarray
    ends: list[End] = field(default_factory=list)
    closed: bool = False

    @functools.cached_property
    def bounds(self) -> tuple[float, float, float, float]:
        (x0, y0), (x1, y1) = self.points.min(axis=0), self.points.max(axis=0)
        return float(x0), float(y0), float(x1), float(y1)


def _walk(branch: set[tuple[int, int]], start: tuple[int, int]) -> list[tuple[int, int]]:
    """The pixels of a one-pixel-wide path in order from ``start``."""
    path = [start]
    seen = {start}
    x, y = start
    while True:
        for dx, dy in STEPS:
            step = (x + dx, y + dy)
            if step in branch and step not in seen:
                break
        else:
            return path
        path.append(step)
        seen.add(step)
        x, y = step


def _direction(points: np.ndarray, reach: int) -> np.ndarray:
    """Unit direction leaving the path at ``points[0]`` (from a point ``reach`` inside it)."""
    vector = points[0] - points[min(reach, len(points) - 1)]
    norm = float(np.hypot(*vector))
    return vector / norm if norm else np.zeros(2)


Branch = tuple[np.ndarray, list[int | None]]  # ordered points, junction zone at each end


def _branches(skeleton: np.ndarray, radius: int) -> tuple[list[Branch], list[np.ndarray]]:
    """The skeleton cut at its junctions (each grown by ``radius`` into one zone): branches
    with the zone at each end (None for a free end), and the loops that touch no junction."""
    degree = neighbours(skeleton) * skeleton
    junction = ((degree >= 3) & (skeleton > 0)).astype(np.uint8)
    zone = cv2.dilate(junction, disk(radius))
    _, zones = cv2.connectedComponents(zone, connectivity=8)
    touch = cv2.dilate(zones.astype(np.float32), np.ones((3, 3), np.uint8)).astype(np.int32)
    rest = (skeleton & (1 - zone)).astype(np.uint8)
    _, labels = cv2.connectedComponents(rest, connectivity=8)
    tip = (neighbours(rest) * rest) <= 1
    ys, xs = np.nonzero(rest)
    members: dict[int, set[tuple[int, int]]] = {}
    tips: dict[int, tuple[int, int]] = {}
    for x, y, label in zip(xs.tolist(), ys.tolist(), labels[ys, xs].tolist(), strict=True):
        members.setdefault(label, set()).add((x, y))
        if tip[y, x]:
            tips.setdefault(label, (x, y))
    branches: list[Branch] = []
    loops: list[np.ndarray] = []
    for label, pixels in members.items():
        path = np.array(_walk(pixels, tips.get(label) or next(iter(pixels))), dtype=float)
        if label not in tips:
            loops.append(path)
        else:
            ends = [int(touch[int(y), int(x)]) or None for x, y in (path[0], path[-1])]
            branches.append((path, ends))
    return branches, loops


def skeleton_chains(skeleton: np.ndarray, thickness: float, headed: np.ndarray) -> list[Chain]:
    """Cut the skeleton at its junctions, pair branches straight through them, follow pairs.

    ``headed`` marks where arrow heads lie: a short branch ending there is a line, not a spur.
    """
    radius = max(2, round(thickness))
    branches, loops = _branches(skeleton, radius)
    # Spurs (a short branch hanging off a junction) come from skeletonising line ends and
    # corners; they are not lines.
    spur = 2 * radius + 2

    def is_spur(path: np.ndarray, ends: list[int | None]) -> bool:
        if len(path) >= spur or (ends[0] is None) == (ends[1] is None):
            return False
        free = path[0] if ends[0] is None else path[-1]
        return not headed[int(free[1]), int(free[0])]

    branches = [(p, e) for p, e in branches if not is_spur(p, e)]
    reach = max(4, round(2 * thickness))
    incident: dict[int, list[tuple[int, int, np.ndarray]]] = {}
    for index, (path, ends) in enumerate(branches):
        for side, zone_id in enumerate(ends):
            if zone_id is not None:
                ordered = path if side == 0 else path[::-1]
                incident.setdefault(zone_id, []).append((index, side, _direction(ordered, reach)))
    partner: dict[tuple[int, int], tuple[int, int]] = {}
    stubs: dict[tuple[int, int], int] = {}
    for zone_id, entries in incident.items():
        keys = [(i, s) for i, s, _ in entries]
        if len(entries) == 2 and keys[0][0] != keys[1][0]:
            # a bend whose spur was dropped, or two halves of one line
            partner[keys[0]], partner[keys[1]] = keys[1], keys[0]
            continue
        pairs = sorted((float(a[2] @ b[2]), (a[0], a[1]), (b[0], b[1]))
                       for a, b in itertools.combinations(entries, 2) if a[0] != b[0])
        for cosine, a, b in pairs:
            if cosine > STRAIGHT:
                break
            if a not in partner and b not in partner:
                partner[a], partner[b] = b, a
        stubs.update({key: zone_id for key in keys if key not in partner})
    done: set[int] = set()
    chains = [_follow(start, branches, partner, stubs, reach, done)
              for start in range(len(branches)) if start not in done]
    return chains + [Chain(loop, closed=True) for loop in loops]


def _follow(start: int, branches: list[Branch], partner: dict[tuple[int, int], tuple[int, int]],
            stubs: dict[tuple[int, int], int], reach: int, done: set[int]) -> Chain:
    """The chain through branch ``start``: its pairs followed both ways (marking ``done``)."""
    done.add(start)
    pieces = [branches[start][0]]
    tails: list[tuple[int, int] | None] = []
    closed = False
    for side in (1, 0):  # forwards from the end, then backwards from the start
        current: tuple[int, int] | None = (start, side)
        while current in partner:
            index, entry = partner[current]
            if index in done:
                closed = index == start
                current = None
                break
            done.add(index)
            path = branches[index][0]
            leaving = path if entry == 0 else path[::-1]
            if side == 1:
                pieces.append(leaving)
            else:
                pieces.insert(0, leaving[::-1])
            current = (index, 1 - entry)
        tails.append(current)
    points = np.concatenate(pieces)
    if closed:
        return Chain(points, closed=True)
    last, first = tails
    return Chain(points, [End(points[0], _direction(points, reach), stubs.get(first)),
                          End(points[-1], _direction(points[::-1], reach), stubs.get(last))])
