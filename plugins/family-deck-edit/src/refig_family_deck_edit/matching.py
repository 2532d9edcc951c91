"""Identity across decks: which slide and which object of one deck is which of another.

Slides match by slide id (``p:sldId``), then by title, then by position among the rest. Objects of
matched slides match by shape id (same kind), then by name, then by geometry and text: the
nearest remaining object of the same kind whose text is the same, else the nearest by box. Shape
ids are reused by many tools, so an id match is kept only when the kind agrees.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from refig_family_deck_edit.structure import DeckObject, DeckStructure, Slide

#: Two boxes farther apart than this share of the slide diagonal never match by geometry alone.
GEOMETRY_RADIUS = 0.35


@dataclass(frozen=True)
class SlidePair:
    """A slide of the original and its counterpart (None when added or removed)."""

    before: Slide | None
    after: Slide | None


def _greedy(left: Sequence[int], right: Sequence[int], key: Callable[[int, int], bool],
            pairs: dict[int, int]) -> None:
    """Pair unpaired items of ``left`` and ``right`` in order wherever ``key`` holds."""
    taken = set(pairs.values())
    for i in left:
        if i in pairs:
            continue
        for j in right:
            if j not in taken and key(i, j):
                pairs[i] = j
                taken.add(j)
                break


def match_slides(before: DeckStructure, after: DeckStructure) -> list[SlidePair]:
    """Every slide of ``before`` with its counterpart in ``after``, then ``after``'s new slides."""
    a, b = before.slides, after.slides
    left, right = range(len(a)), range(len(b))
    pairs: dict[int, int] = {}
    _greedy(left, right, lambda i, j: a[i].slide_id is not None
            and a[i].slide_id == b[j].slide_id, pairs)
    _greedy(left, right, lambda i, j: bool(a[i].title) and a[i].title == b[j].title, pairs)
    rest_a = [i for i in left if i not in pairs]
    rest_b = [j for j in right if j not in pairs.values()]
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


def match_objects(before: Sequence[DeckObject], after: Sequence[DeckObject],
                  diagonal: float) -> tuple[list[tuple[DeckObject, DeckObject]],
                                            list[DeckObject], list[DeckObject]]:
    """Pairs, objects only in ``before`` (removed), objects only in ``after`` (added)."""
    left, right = range(len(before)), range(len(after))
    pairs: dict[int, int] = {}
    _greedy(left, right, lambda i, j: before[i].id is not None and before[i].id == after[j].id
            and before[i].kind == after[j].kind, pairs)
    _greedy(left, right, lambda i, j: bool(before[i].name) and before[i].name == after[j].name
            and before[i].kind == after[j].kind, pairs)
    radius = GEOMETRY_RADIUS * diagonal
    for same_text in (True, False):
        taken = set(pairs.values())
        for i in left:
            if i in pairs:
                continue
            candidates = [j for j in right if j not in taken and after[j].kind == before[i].kind
                          and (not same_text or after[j].text == before[i].text)]
            if not candidates:
                continue
            best = min(candidates, key=lambda j: _distance(before[i], after[j]))
            if same_text or _distance(before[i], after[best]) <= radius:
                pairs[i] = best
                taken.add(best)
    used = set(pairs.values())
    return ([(before[i], after[pairs[i]]) for i in left if i in pairs],
            [before[i] for i in left if i not in pairs],
            [after[j] for j in right if j not in used])
