"""The structural diff: what changed from the original deck to another (target or prediction),
and how the prediction's changes compare with the target's.

A change is keyed by where it happened (the original slide's position, the object's name or id in
the original) and what changed (a field); ``after`` is the new value. Requested changes are the
original -> target diff, done changes the original -> prediction diff. A requested change is
achieved when the prediction changed the same key to the same value (numbers within
:data:`GEOMETRY_TOLERANCE` EMU), missed otherwise; a done change whose key nobody requested is
collateral.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator

from refig_family_deck_edit.matching import flatten, match_objects, match_slides
from refig_family_deck_edit.structure import DeckObject, DeckStructure, Slide

#: Geometry within this many EMU (0.1 pt) is the same: tools round positions differently.
GEOMETRY_TOLERANCE = 1270

_OBJECT_FIELDS = ("kind", "text", "x", "y", "w", "h", "rotation", "hidden", "placeholder",
                  "geometry", "fill", "line", "image_sha256", "alt_text", "link", "start_id",
                  "end_id", "chart", "smartart", "media")
_SLIDE_FIELDS = ("hidden", "layout", "background", "section", "notes", "transition", "animations")
_NUMERIC = {"x", "y", "w", "h"}


class Change(BaseModel):
    """One difference: ``slide`` is the original's slide number (None: the deck; for an added
    slide, its number in the changed deck prefixed ``+``), ``target`` the object."""

    model_config = ConfigDict(frozen=True)

    slide: str
    target: str
    field: str
    before: Any = None
    after: Any = None

    @field_validator("before", "after", mode="before")
    @classmethod
    def _plain(cls, value: Any) -> Any:
        return plain(value)

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.slide, self.target, self.field)

    def line(self) -> str:
        """``slide 3 / Table 1: cell 2,3 '41' -> '57'``, clipped for a judge to read."""
        where = "deck" if self.slide == "deck" else f"slide {self.slide}"
        if self.target:
            where += f" / {self.target}"
        return f"{where}: {self.field} {_show(self.before)} -> {_show(self.after)}"


def plain(value: Any) -> Any:
    """A JSON value (tuples as lists), so a change compares equal to its stored copy."""
    return json.loads(json.dumps(value, default=str))


def _show(value: Any, limit: int = 120) -> str:
    text = "(none)" if value is None or value == "" else repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _label(obj: DeckObject) -> str:
    return obj.name or (f"id {obj.id}" if obj.id is not None else obj.kind)


def object_fields(obj: DeckObject) -> dict[str, Any]:
    """The comparable fields of an object, text properties summarised over its runs."""
    fields: dict[str, Any] = {name: getattr(obj, name) for name in _OBJECT_FIELDS}
    if obj.kind in ("table", "chart", "smartart"):
        del fields["text"]  # read from the cells, chart data or diagram nodes, compared there
    for name in ("chart", "media"):
        if fields[name] is not None:
            fields[name] = fields[name].model_dump()
    for r, row in enumerate(obj.cells, 1):  # one field per cell: the right cell is achieved
        for c, text in enumerate(row, 1):  # even when another is collateral
            fields[cell_field(r, c)] = text
    runs = [run for p in obj.paragraphs for run in p.runs if run.text.strip()]
    fields["font_sizes"] = tuple(sorted({r.size for r in runs if r.size is not None}))
    fields["fonts"] = tuple(sorted({r.font for r in runs if r.font}))
    fields["text_colors"] = tuple(sorted({r.color for r in runs if r.color}))
    fields["bold"] = tuple(r.bold for r in runs)
    fields["italic"] = tuple(r.italic for r in runs)
    fields["run_links"] = tuple(r.link for r in runs if r.link)
    fields["align"] = tuple(p.align for p in obj.paragraphs)
    fields["bullets"] = tuple(p.bullet for p in obj.paragraphs)
    fields["levels"] = tuple(p.level for p in obj.paragraphs)
    return fields


def cell_field(row: int, column: int) -> str:
    """The diff's field of one table cell, from 1: ``cell 2,3``."""
    return f"cell {row},{column}"


def same(field: str, one: Any, two: Any) -> bool:
    """Equal, with geometry compared within the tolerance."""
    if field in _NUMERIC and isinstance(one, int) and isinstance(two, int):
        return abs(one - two) <= GEOMETRY_TOLERANCE
    return bool(one == two)


def restacked(pairs: list[tuple[DeckObject, DeckObject]]) -> dict[int, int]:
    """The objects whose paint order moved, by ``id()`` of the original, with their new rank.

    The objects that kept their order relative to each other form the longest increasing run of
    new ranks in the old order; everything else was brought forward or sent back. So bringing
    one shape to the front reports that shape alone, not every shape it passed.
    """
    old = sorted(range(len(pairs)), key=lambda k: pairs[k][0].z)
    rank = {k: r for r, k in enumerate(sorted(range(len(pairs)), key=lambda k: pairs[k][1].z))}
    sequence = [rank[k] for k in old]
    tails: list[int] = []
    tail_at: list[int] = []
    parent = [-1] * len(sequence)
    for position, value in enumerate(sequence):
        slot = bisect.bisect_left(tails, value)
        if slot == len(tails):
            tails.append(value)
            tail_at.append(position)
        else:
            tails[slot], tail_at[slot] = value, position
        parent[position] = tail_at[slot - 1] if slot else -1
    kept: set[int] = set()
    position = tail_at[-1] if tail_at else -1
    while position >= 0:
        kept.add(position)
        position = parent[position]
    return {id(pairs[old[p]][0]): sequence[p] for p in range(len(sequence)) if p not in kept}


def _slide_changes(label: str, one: Slide, two: Slide, diagonal: float) -> Iterator[Change]:
    for name in _SLIDE_FIELDS:
        a, b = getattr(one, name), getattr(two, name)
        a = a.model_dump() if hasattr(a, "model_dump") else a
        b = b.model_dump() if hasattr(b, "model_dump") else b
        if a != b:
            yield Change(slide=label, target="", field=name, before=a, after=b)
    pairs, removed, added = match_objects(flatten(one.objects), flatten(two.objects), diagonal)
    moved = restacked(pairs)
    for a, b in pairs:
        fa, fb = object_fields(a), object_fields(b)
        for name in dict.fromkeys([*fa, *fb]):  # a table's cells may differ in number
            if not same(name, fa.get(name), fb.get(name)):
                yield Change(slide=label, target=_label(a), field=name, before=fa.get(name),
                             after=fb.get(name))
        if id(a) in moved:
            yield Change(slide=label, target=_label(a), field="z_order", after=moved[id(a)])
    for obj in removed:
        yield Change(slide=label, target=_label(obj), field="object", before=obj.kind)
    for obj in added:  # keyed by what it shows: a new object's name is the tool's choice
        shown = f"new {obj.kind} {obj.text[:40]!r}" if obj.text else f"new {obj.kind}"
        yield Change(slide=label, target=shown, field="object", after=obj.kind)


def changes(before: DeckStructure, after: DeckStructure) -> list[Change]:
    """Every difference from ``before`` to ``after``, in slide order."""
    found: list[Change] = []
    for name in ("slide_width", "slide_height", "sections", "masters"):
        if getattr(before, name) != getattr(after, name):
            found.append(Change(slide="deck", target="", field=name,
                                before=getattr(before, name), after=getattr(after, name)))
    for key, value in before.theme.model_dump().items():
        other = getattr(after.theme, key)
        if key == "colors":  # one change per colour slot
            for slot in sorted(set(value) | set(other)):
                if value.get(slot) != other.get(slot):
                    found.append(Change(slide="deck", target="theme", field=f"color:{slot}",
                                        before=value.get(slot), after=other.get(slot)))
        elif value != other:
            found.append(Change(slide="deck", target="theme", field=key, before=value,
                                after=other))
    diagonal = (before.slide_width ** 2 + before.slide_height ** 2) ** 0.5
    pairs = match_slides(before, after)
    kept = [(p.before, p.after) for p in pairs if p.before is not None and p.after is not None]
    after_order = [b.index for _, b in kept]
    if after_order != sorted(after_order):
        found.append(Change(slide="deck", target="", field="slide_order",
                            before=[a.index for a, _ in kept], after=after_order))
    for pair in pairs:
        if pair.before is not None and pair.after is not None:
            found += _slide_changes(str(pair.before.index), pair.before, pair.after, diagonal)
        elif pair.before is not None:
            found.append(Change(slide=str(pair.before.index), target="", field="slide",
                                before=pair.before.title or pair.before.part))
        elif pair.after is not None:
            found.append(Change(slide=f"+{pair.after.index}", target="", field="slide",
                                after=pair.after.title or pair.after.part))
    return found
