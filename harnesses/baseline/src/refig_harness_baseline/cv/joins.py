"""Chains completed: arrow heads attached to the ends beside them, ends that meet across a dash
gap at an elbow joined (through a k-d tree), and T junctions split into fan-outs and fan-ins."""

from __future__ import annotations

import cv2
import numpy as np
from scipy.spatial import cKDTree

from refig_harness_baseline.cv.chains import Chain, End


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
