"""Votes in the run store: record, undo (a retraction, never a delete), export and import as JSONL.

Every vote is a :class:`~refig.models.Preference` keyed by its id (128 random bits, made by the
page so a retried request stores it once). Undo stores the same vote again with ``retracted_at``
set. Export and import go through :mod:`.exchange` (merge by id, retractions
travel, importing twice adds nothing).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import IO, TypeVar

from refig.models import Preference, Rating, utcnow
from refig.store import RunStore

from refig_toolkit_analysis.annotation.exchange import (
    ANNOTATOR,
    ImportResult,
    export_records,
    import_records,
    run_ids,
)
from refig_toolkit_analysis.annotation.exchange import RECORD_ID as VOTE_ID

__all__ = ["ANNOTATOR", "VOTE_ID", "ImportResult", "export_votes", "import_votes", "item_key",
           "last_vote", "retract", "vote_key"]

#: A task and two configuration ids, sorted: the identity of a comparison whatever the order shown.
ItemKey = tuple[str, str, str]
Human = TypeVar("Human", Preference, Rating)


def item_key(task_id: str, a: str, b: str) -> ItemKey:
    """The comparison of configurations ``a`` and ``b`` on a task, in either order."""
    return (task_id, a, b) if a <= b else (task_id, b, a)


def vote_key(vote: Preference) -> ItemKey:
    """The comparison a vote is about."""
    return item_key(vote.task_id, vote.left, vote.right)


def last_vote(votes: Iterable[Human], annotator: str) -> Human | None:
    """The annotator's most recent active vote (or rating), the one undo takes back."""
    mine = [v for v in votes if v.annotator == annotator and v.active]
    return max(mine, key=lambda v: (v.created_at, v.id)) if mine else None


def retract(store: RunStore, vote: Human) -> Human:
    """Store the vote (or rating) again, marked as taken back (a keyed replace of the same id)."""
    retracted = vote.model_copy(update={"retracted_at": utcnow()})
    store.put(retracted, replace=True)
    return retracted


def export_votes(store: RunStore, out: IO[str]) -> int:
    """Every vote of the run, retracted ones included, one JSON object a line."""
    return export_records(store, Preference, out)


def import_votes(store: RunStore, path: Path) -> ImportResult:
    """Merge a JSONL file of votes into the run (all or nothing: any bad line stops the import)."""
    tasks, configs = run_ids(store)

    def check(vote: Preference) -> str | None:
        if vote.task_id not in tasks:
            return f"is a vote on task {vote.task_id!r}, which this run does not have"
        for config in (vote.left, vote.right):
            if config not in configs:
                return f"names configuration {config!r}, which this run does not have"
        return None

    return import_records(store, path, Preference, check)
