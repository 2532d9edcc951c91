"""Lines and arrows of a figure, traced through the skeleton of what boxes and text leave.

1. Arrow heads are the blobs that an opening with a disk a little wider than the lines keeps.
2. The rest is joined across dash gaps (along rows, along columns), skeletonised
   (scikit-image) and cut at its junctions into branches.
3. At each junction the branches that continue one another (opposite directions) are paired,
   so crossing links pass through each other; followed from pair to pair, branches form
   chains, one per drawn line, elbows included. Chain ends that meet across a dash gap at an
   elbow are joined (nearest first, through a k-d tree). A line ending on another one at a T
   splits it into two links when that makes a fan-out (heads on the bar) or a fan-in (head on
   the stem).
4. A chain end next to a head carries it, its point moved to the head's tip. A chain that
   closes on itself is an outline, not a link.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass, field

import cv2
import numpy as np
from scipy.spatial import cKDTree
from skimage.morphology import skeletonize

from refig_harness_baseline.cv.scene import RGB, Link

#: The 8 neighbours of a pixel, 4-neighbours first so a walk turns corners pixel by pixel.
STEPS = ((0, 1), (1, 0), (0, -1), (-1, 0), (1, 1), (1, -1), (-1, 1), (-1, -1))
#: Two branch ends at a junction continue one another when their directions are this opposite.
STRAIGHT = -np.cos(np.radians(40))
#: A line whose skeleton is inked for less than this share is dashed (dashes join across gaps).
DASHED = 0.8
#: A plain (headless) line shorter than this many minimum box sides is a glyph's detail.
PLAIN_MIN = 2


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


def neighbours(mask: np.ndarray) -> np.ndarray:
    """How many of its 8 neighbours each pixel of ``mask`` has set."""
    kernel = np.ones((3, 3), np.float32)
    kernel[1, 1] = 0
    return cv2.filter2D(mask.astype(np.float32), -1, kernel, borderType=cv2.BORDER_CONSTANT)


def _disk(radius: int) -> np.ndarray:
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius + 1,) * 2)


def bridge(mask: np.ndarray, gap: int, run: int) -> np.ndarray:
    """Join dashes: horizontal runs across gaps along their row, vertical ones along their column.

    Only runs at least ``run`` long take part, so two parallel lines a few pixels apart are
    never glued together (a plain closing would fill the space between them).
    """
    joined = mask.copy()
    for shape, along in (((1, run), (1, gap)), ((run, 1), (gap, 1))):
        runs = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones(shape, np.uint8))
        joined |= cv2.morphologyEx(runs, cv2.MORPH_CLOSE, np.ones(along, np.uint8))
    return joined


def find_heads(mask: np.ndarray, thickness: float) -> tuple[np.ndarray, np.ndarray]:
    """Arrow-head blobs, as a label image and their boxes (x, y, w, h per label).

    Lines are thinner than the opening's disk and vanish; a head is wider and stays. Blobs far
    larger than a head (filled shapes, glyph masses) are dropped.
    """
    radius = max(2, round(0.75 * thickness + 0.5))
    solid = cv2.morphologyEx(mask, cv2.MORPH_OPEN, _disk(radius))
    _, labels, stats, _ = cv2.connectedComponentsWithStats(solid, connectivity=8)
    side = 2 * radius + 1
    large = (stats[:, 4] > (4 * side) ** 2) | (stats[:, 2:4].max(axis=1) > 6 * side)
    large[0] = True
    labels[large[labels]] = 0
    return labels, stats[:, :4]


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
    zone = cv2.dilate(junction, _disk(radius))
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


def attach_heads(chains: list[Chain], heads: np.ndarray, boxes: np.ndarray, full: np.ndarray,
                 reach: float) -> None:
    """Give each head to the nearest chain end within ``reach``, and move that end to its tip.

    The tip is the pixel of the head (grown back to its full size in ``full``) farthest from
    the line.
    """
    ys, xs = np.nonzero(heads)
    ends = [end for chain in chains for end in chain.ends]
    if len(xs) == 0 or not ends:
        return
    owners = heads[ys, xs]
    tree = cKDTree(np.stack([xs, ys], axis=1))
    distance, nearest = tree.query(np.array([end.point for end in ends]),
                                   distance_upper_bound=reach)
    claims = sorted((float(d), int(owners[i]), k) for k, (d, i) in enumerate(
        zip(distance, nearest, strict=True)) if np.isfinite(d))
    taken: set[int] = set()
    for _, head, k in claims:
        end = ends[k]
        if head in taken or end.head is not None:
            continue
        taken.add(head)
        end.head = head
        x, y, w, h = boxes[head]
        x0, y0 = max(0, x - 3), max(0, y - 3)
        core = (heads[y0:y + h + 3, x0:x + w + 3] == head).astype(np.uint8)
        region = cv2.dilate(core, np.ones((5, 5), np.uint8)) & full[y0:y + h + 3, x0:x + w + 3]
        hy, hx = np.nonzero(region)
        spots = np.stack([hx + x0, hy + y0], axis=1).astype(float)
        end.tip = spots[np.argmax(np.hypot(*(spots - end.point).T))]


def join_corners(chains: list[Chain], gap: float) -> list[Chain]:
    """Join free ends that meet across a dash gap at an elbow (or along a line), nearest first.

    Two ends join when they are within ``gap`` of each other and do not point the same way
    (two lines ending side by side do).
    """
    free = [(i, side) for i, chain in enumerate(chains) for side, end in enumerate(chain.ends)
            if end.head is None and end.junction is None]
    if len(free) < 2:
        return chains
    points = np.array([chains[i].ends[side].point for i, side in free])
    pairs = sorted(cKDTree(points).query_pairs(gap),
                   key=lambda ij: float(np.hypot(*(points[ij[0]] - points[ij[1]]))))
    # A current chain is an ordered list of (original chain, reversed) pieces; an end key
    # (original chain, side) names the current chain it ends.
    pieces: dict[int, list[tuple[int, bool]]] = {i: [(i, False)] for i in range(len(chains))}
    owner = {(i, side): i for i in range(len(chains)) for side in (0, 1)}
    for a, b in pairs:
        ka, kb = free[a], free[b]
        if ka not in owner or kb not in owner:
            continue
        ca, cb = owner[ka], owner[kb]
        out_a, out_b = chains[ka[0]].ends[ka[1]].out, chains[kb[0]].ends[kb[1]].out
        if ca == cb or float(out_a @ out_b) >= 0.5:
            continue
        first = pieces[ca] if _last_key(pieces[ca]) == ka else _reverse(pieces[ca])
        second = pieces[cb] if _first_key(pieces[cb]) == kb else _reverse(pieces[cb])
        del owner[ka], owner[kb], pieces[cb]
        pieces[ca] = first + second
        owner[_first_key(pieces[ca])] = owner[_last_key(pieces[ca])] = ca
    joined = []
    for parts in pieces.values():
        arrays = [chains[i].points[::-1] if flipped else chains[i].points for i, flipped in parts]
        (first_chain, first_side), (last_chain, last_side) = _first_key(parts), _last_key(parts)
        joined.append(Chain(np.concatenate(arrays), [chains[first_chain].ends[first_side],
                                                     chains[last_chain].ends[last_side]]))
    return joined


def _first_key(parts: list[tuple[int, bool]]) -> tuple[int, int]:
    index, flipped = parts[0]
    return index, 1 if flipped else 0


def _last_key(parts: list[tuple[int, bool]]) -> tuple[int, int]:
    index, flipped = parts[-1]
    return index, 0 if flipped else 1


def _reverse(parts: list[tuple[int, bool]]) -> list[tuple[int, bool]]:
    return [(index, not flipped) for index, flipped in reversed(parts)]


def split_tees(chains: list[Chain], reach: float) -> list[Chain]:
    """A headless stem ending on a bar at a T makes one link with each half of the bar, when
    that draws a fan-out (heads at both ends of the bar, none on the stem) or a fan-in (the
    stem's far end headed, the bar's ends not)."""
    result = list(chains)
    for stem in [c for c in chains if any(e.junction for e in c.ends)]:
        for side, end in enumerate(stem.ends):
            if not end.junction or end.head is not None or stem not in result:
                continue
            bar = _bar(result, stem, end, reach)
            if bar is None:
                continue
            fan_in = stem.ends[1 - side].head is not None
            if [e.head is not None for e in bar.ends] != ([False, False] if fan_in
                                                          else [True, True]):
                continue
            cut = int(np.argmin(np.hypot(*(bar.points - end.point).T)))
            if cut < 2 or cut > len(bar.points) - 3:
                continue
            own = stem.points if side == 1 else stem.points[::-1]
            halves = (bar.points[cut::-1], bar.points[cut:])
            made = [Chain(np.concatenate([own, half]), [stem.ends[1 - side], bar_end])
                    for half, bar_end in zip(halves, bar.ends, strict=True)]
            result = [c for c in result if c is not stem and c is not bar] + made
    return result


def _bar(chains: list[Chain], stem: Chain, end: End, reach: float) -> Chain | None:
    """The chain passing within ``reach`` of ``end`` (a T's bar), if any."""
    best: tuple[float, Chain] | None = None
    x, y = end.point
    for chain in chains:
        if chain is stem:
            continue
        x0, y0, x1, y1 = chain.bounds
        if x < x0 - reach or x > x1 + reach or y < y0 - reach or y > y1 + reach:
            continue
        distance = float(np.min(np.hypot(*(chain.points - end.point).T)))
        if distance <= reach and (best is None or distance < best[0]):
            best = (distance, chain)
    return best[1] if best is not None else None


def deviation(points: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """Largest distance of ``points`` from the segment a-b."""
    ab = b - a
    norm = float(np.hypot(*ab))
    if norm == 0:
        return 0.0
    t = np.clip(((points - a) @ ab) / (norm * norm), 0, 1)
    nearest = a + t[:, None] * ab
    return float(np.max(np.hypot(*(points - nearest).T)))


def _line_skeleton(joined: np.ndarray, unit: int) -> np.ndarray:
    """The skeleton of the components that look like lines: not specks, not blobs (icons,
    photos: much more ink than their skeleton's length times a line's width)."""
    skeleton = skeletonize(joined.astype(bool))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(joined, connectivity=8)
    length = np.bincount(labels[skeleton], minlength=count)
    keep = ((stats[:, 2:4].max(axis=1) >= unit) & (length > 0)
            & (stats[:, 4] <= max(8.0, 4 * unit) * np.maximum(length, 1)))
    keep[0] = False
    return (skeleton & keep[labels]).astype(np.uint8)


def trace(residual: np.ndarray, img: np.ndarray, unit: int, min_side: int) -> list[Link]:
    """The links (not yet bound) drawn by ``residual``, the ink left once boxes and text are
    erased."""
    padded = cv2.copyMakeBorder(residual, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    distance = cv2.distanceTransform(padded, cv2.DIST_L2, 3)[1:-1, 1:-1]
    centres = skeletonize(residual.astype(bool))
    if not centres.any():
        return []
    # The typical line width: twice the distance to the background at the lines' centres.
    thickness = max(1.0, 2 * float(np.median(distance[centres])))
    heads, head_boxes = find_heads(residual, thickness)
    lines = residual & (1 - cv2.dilate((heads > 0).astype(np.uint8), np.ones((5, 5), np.uint8)))
    gap = 2 * unit + 3
    skeleton = _line_skeleton(bridge(lines, gap, int(np.ceil(1.5 * thickness)) + 1), unit)
    reach = 2 * thickness + 6
    headed = cv2.dilate((heads > 0).astype(np.uint8), _disk(int(reach)))
    chains = [c for c in skeleton_chains(skeleton, thickness, headed) if not c.closed]
    attach_heads(chains, heads, head_boxes, residual, reach)
    chains = split_tees(join_corners(chains, 2 * gap), reach)
    links: list[Link] = []
    for chain in chains:
        start, end = chain.ends
        headed_chain = start.head is not None or end.head is not None
        span = float(np.hypot(end.at[0] - start.at[0], end.at[1] - start.at[1]))
        if len(chain.points) < min_side * (1 if headed_chain else PLAIN_MIN) or span < min_side / 2:
            continue  # a short plain stroke is a glyph's detail more often than a link
        links.append(_link(chain, img, lines, distance, thickness))
    return links


def _link(chain: Chain, img: np.ndarray, lines: np.ndarray, distance: np.ndarray,
          thickness: float) -> Link:
    """A chain as a link: colour and width from its ink, dashed when its skeleton is often
    bare (dash gaps), elbow when it strays from the straight line between its ends."""
    start, end = chain.ends
    xs, ys = chain.points[:, 0].astype(int), chain.points[:, 1].astype(int)
    inked = lines[ys, xs] == 1
    ink = img[ys[inked], xs[inked]]
    median = np.median(ink, axis=0) if len(ink) else np.zeros(3)
    color: RGB = (int(median[0]), int(median[1]), int(median[2]))
    width = 2 * float(np.median(distance[ys[inked], xs[inked]])) if inked.any() else thickness
    bend = deviation(chain.points, np.array(start.at), np.array(end.at))
    return Link(start.at, end.at, elbow=bend > max(6.0, 3 * thickness),
                head_start=start.head is not None, head_end=end.head is not None,
                color=color, width_px=max(1.0, width), dashed=bool(inked.mean() < DASHED))
