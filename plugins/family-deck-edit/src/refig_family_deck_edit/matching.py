"""Identity across decks: which slide and which object of one deck is which of another.

Slides match by slide id (``p:sldId``), then by title, then by position among the rest (only
when as many remain on both sides). Objects of matched slides match by shape id (same kind),
then by name (same kind), then by geometry and text: the nearest remaining object of the same
kind with the same text, else the nearest of the same kind within :data:`GEOMETRY_RADIUS` of the
slide's diagonal. Shape ids are reused by many tools, so an id match needs the kind to agree.
Every stage is linear in the objects but the nearest-neighbour ones, which look at no more than
:data:`MAX_CANDIDATES` candidates each, so a hostile slide of 20,000 shapes stays fast.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass

from refig_family_deck_edit.structure import DeckObject, DeckStructure, Slide

#: Two boxes farther apart than this share of the slide diagonal never match by geometry alone.
GEOMETRY_RADIUS = 0.35
#: Candidates a geometric match compares, in document order.
MAX_CANDIDATES = 64


@dataclass(frozen=True)
class SlidePair:
    """A slide of the original and its counterpart (None when added or removed)."""

    before: Slide | None
    after: Slide | None


def _by_key(left: Sequence[int], right: Sequence[int], key: Callable[[int, str], Hashable | None],
            pairs: dict[int, int]) -> None:
    """Pair unpaired items with equal keys (None never matches), in order on both sides."""
    taken = set(pairs.values())
    waiting: dict[Hashable, list[int]] = defaultdict(list)
    for j in right:
        k = key(j, "right")
        if j not in taken and k is not None:
            waiting[k].append(j)
    for i in left:
        k = key(i, "left")
        if i in pairs or k is None or not waiting.get(k):
            continue
        pairs[i] = waiting[k].pop(0)


def match_slides(before: DeckStructure, after: DeckStructure) -> list[SlidePair]:
    """Every slide of ``before`` with its counterpart in ``after``, then ``after``'s new slides."""
    a, b = before.slides, after.slides
    left, right = range(len(a)), range(len(b))
    pairs: dict[int, int] = {}
    _by_key(left, right, lambda k, side: (a if side == "left" else b)[k].slide_id, pairs)
    _by_key(left, right, lambda k, side: (a if side == "left" else b)[k].title or None, pairs)
    rest_a = [i for i in left if i not in pairs]
    used = set(pairs.values())
    rest_b = [j for j in right if j not in used]
    if len(rest_a) == len(rest_b):  # the rest by position, only when nothing was added or removed
        pairs.update(zip(rest_a, rest_b, strict=True))
    matched = [SlidePair(a[i], b[pairs[i]] if i in pairs else None) for i in left]
    used = set(pairs.values())
    return matched + [SlidePair(None, b[j]) for j in right if j not in used]


def _centre(obj: DeckObject) -> tuple[float, float] | None:
    if obj.x is None or obj.y is None or obj.w is None or obj.h is None:
        return None
    return obj.x + obj.w / 2, obj.y + obj.h / 2


def _distance(one: DeckObject, two: DeckObject) -> float:
    c1, c2 = _centre(one), _centre(two)
    if c1 is None or c2 is None:
        return float("inf") if (c1 is None) != (c2 is None) else 0.0
    return ((c1[0] - c2[0]) ** 2 + (c1[1] - c2[1]) ** 2) ** 0.5


def flatten(objects: Iterable[DeckObject]) -> list[DeckObject]:
    """Objects and their children, groups first."""
    found: list[DeckObject] = []
    for obj in objects:
        found.append(obj)
        found += flatten(obj.children)
    return found


def _nearest(before: Sequence[DeckObject], after: Sequence[DeckObject], pairs: dict[int, int],
             key: Callable[[DeckObject], Hashable], radius: float) -> None:
    """Pair each unpaired object with the nearest unpaired one of the same ``key``."""
    taken = set(pairs.values())
    pool: dict[Hashable, list[int]] = defaultdict(list)
    for j, obj in enumerate(after):
        if j not in taken:
            pool[key(obj)].append(j)
    for i, obj in enumerate(before):
        candidates = pool.get(key(obj))
        if i in pairs or not candidates:
            continue
        best = min(candidates[:MAX_CANDIDATES], key=lambda j: _distance(obj, after[j]))
        if _distance(obj, after[best]) <= radius:
            pairs[i] = best
            candidates.remove(best)


def match_objects(before: Sequence[DeckObject], after: Sequence[DeckObject],
                  diagonal: float) -> tuple[list[tuple[DeckObject, DeckObject]],
                                            list[DeckObject], list[DeckObject]]:
    """Pairs, objects only in ``before`` (removed), objects only in ``after`` (added)."""
    left, right = range(len(before)), range(len(after))
    pairs: dict[int, int] = {}

    def side(name: str) -> Sequence[DeckObject]:
        return before if name == "left" else after

    _by_key(left, right, lambda k, s: None if side(s)[k].id is None
            else (side(s)[k].id, side(s)[k].kind), pairs)
    _by_key(left, right, lambda k, s: (side(s)[k].name, side(s)[k].kind)
            if side(s)[k].name else None, pairs)
    _nearest(before, after, pairs, lambda o: (o.kind, o.text), float("inf"))
    _nearest(before, after, pairs, lambda o: o.kind, GEOMETRY_RADIUS * diagonal)
    used = set(pairs.values())
    return ([(before[i], after[pairs[i]]) for i in left if i in pairs],
            [before[i] for i in left if i not in pairs],
            [after[j] for j in right if j not in used])
