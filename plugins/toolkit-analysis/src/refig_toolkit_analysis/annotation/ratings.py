"""Expert ratings in the run store: read, export and import as JSONL, checked against the rubric.

A :class:`~refig.models.Rating` is stored, undone and merged exactly as a vote is
(:mod:`.exchange`); an imported rating must also name the task family's rubric
and give every one of its axes a whole number in range, so a file rated on another scale is
refused rather than mixed in.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import IO

from refig.models import Rating, Task
from refig.store import RunStore

from refig_toolkit_analysis.annotation.exchange import (
    ImportResult,
    export_records,
    import_records,
    run_ids,
)
from refig_toolkit_analysis.annotation.rating_items import Axis, rubric_axes


def stored_ratings(store: RunStore | None, *, retracted: bool = False) -> list[Rating]:
    """The run's active ratings (with ``retracted``, undone ones too); none without a store or
    in a read-only run from before ratings existed."""
    if store is None:  # run data assembled in memory
        return []
    try:
        return [r for r in store.iter(Rating) if retracted or r.active]
    except sqlite3.OperationalError:  # a read-only open of a store without the table
        return []


def export_ratings(store: RunStore, out: IO[str]) -> int:
    """Every rating of the run, retracted ones included, one JSON object a line."""
    return export_records(store, Rating, out)


def scale_problem(scores: dict[str, int], rubric: str, expected: tuple[str, tuple[Axis, ...]]
                  ) -> str | None:
    """What is wrong with a rating's scores against the family's rubric, or None."""
    name, axes = expected
    if rubric != name:
        return f"is rated on rubric {rubric!r}, and this task's family rates on {name!r}"
    ids = sorted(a.id for a in axes)
    if sorted(scores) != ids:
        return f"rates the axes {sorted(scores)}, and the rubric has {ids}"
    for axis in axes:
        if not 0 <= scores[axis.id] <= axis.max:
            return f"gives {axis.id} {scores[axis.id]}, outside 0..{axis.max}"
    return None


def import_ratings(store: RunStore, path: Path) -> ImportResult:
    """Merge a JSONL file of ratings into the run (all or nothing: any bad line stops it)."""
    tasks, configs = run_ids(store)
    families = {t.id: t.family for t in store.iter(Task)}
    scales: dict[str, tuple[str, tuple[Axis, ...]]] = {}

    def check(rating: Rating) -> str | None:
        if rating.task_id not in tasks:
            return f"is a rating of task {rating.task_id!r}, which this run does not have"
        if rating.config_id not in configs:
            return f"names configuration {rating.config_id!r}, which this run does not have"
        family = families.get(rating.task_id)
        if family is None:
            return None
        if family not in scales:
            scales[family] = rubric_axes(family)
        return scale_problem(rating.scores, rating.rubric, scales[family])

    return import_records(store, path, Rating, check)
