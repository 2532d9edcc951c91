"""Votes in the run store: record, undo (a retraction, never a delete), export and import as JSONL.

Every vote is a :class:`~refig.models.Preference` keyed by its id (128 random bits, made by the
page so a retried request stores it once). Undo stores the same vote again with ``retracted_at``
set. Import merges by id: a new id is added, a known one is left alone, except that a retraction
of a vote held active is applied; a retraction is never undone by an import. So importing twice
adds nothing, and machines can exchange files in any order and converge.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from pydantic import ValidationError

from refig.errors import RefigError
from refig.models import Attempt, Configuration, Preference, Task, utcnow
from refig.store import RunStore

VOTE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{7,63}$")
ANNOTATOR = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$")
#: A vote is well under a kilobyte; a longer line is not one.
MAX_LINE_BYTES = 1 << 16

#: A task and two configuration ids, sorted: the identity of a comparison whatever the order shown.
ItemKey = tuple[str, str, str]


def item_key(task_id: str, a: str, b: str) -> ItemKey:
    """The comparison of configurations ``a`` and ``b`` on a task, in either order."""
    return (task_id, a, b) if a <= b else (task_id, b, a)


def vote_key(vote: Preference) -> ItemKey:
    """The comparison a vote is about."""
    return item_key(vote.task_id, vote.left, vote.right)


def last_vote(votes: Iterable[Preference], annotator: str) -> Preference | None:
    """The annotator's most recent active vote, the one undo takes back."""
    mine = [v for v in votes if v.annotator == annotator and v.active]
    return max(mine, key=lambda v: (v.created_at, v.id)) if mine else None


def retract(store: RunStore, vote: Preference) -> Preference:
    """Store the vote again, marked as taken back (a keyed replace of the same id)."""
    retracted = vote.model_copy(update={"retracted_at": utcnow()})
    store.put(retracted, replace=True)
    return retracted


def export_votes(store: RunStore, out: IO[str]) -> int:
    """Every vote of the run, retracted ones included, one JSON object a line."""
    return store.export("preferences", "jsonl", out)


@dataclass(frozen=True)
class ImportResult:
    """What an import changed: new votes, retractions applied, votes already held."""

    added: int
    retracted: int
    unchanged: int


def _same_vote(a: Preference, b: Preference) -> bool:
    """Equal in everything but the retraction."""
    unset = {"retracted_at": None}
    return a.model_copy(update=unset) == b.model_copy(update=unset)


def _read(path: Path, tasks: set[str], configs: set[str]) -> list[tuple[int, Preference]]:
    found: list[tuple[int, Preference]] = []
    by_id: dict[str, tuple[int, Preference]] = {}
    fix = "each line must be one vote as `refig annotate export` writes it"
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise RefigError(f"cannot read {path}: {exc.strerror}", path=path) from exc
    with handle:
        for number, raw in enumerate(iter(lambda: handle.readline(MAX_LINE_BYTES + 1), b""), 1):
            where = f"line {number} of {path}"
            if len(raw) > MAX_LINE_BYTES:
                raise RefigError(
                    f"{where} is longer than {MAX_LINE_BYTES} bytes", path=path, fix=fix
                )
            if not raw.strip():
                continue
            try:
                vote = Preference.model_validate_json(raw)
            except ValidationError as exc:
                first = exc.errors()[0]
                place = ".".join(str(p) for p in first["loc"]) or "the line"
                raise RefigError(
                    f"{where} is not a vote: {place}: {first['msg']}", path=path, fix=fix
                ) from exc
            if not VOTE_ID.match(vote.id) or not ANNOTATOR.match(vote.annotator):
                raise RefigError(
                    f"{where} has a malformed vote id or annotator name", path=path, fix=fix
                )
            if vote.task_id not in tasks:
                raise RefigError(
                    f"{where} is a vote on task {vote.task_id!r}, which this run does not have",
                    path=path,
                    fix="import votes into the run (or a copy of the run) they were made on",
                )
            for config in (vote.left, vote.right):
                if config not in configs:
                    raise RefigError(
                        f"{where} names configuration {config!r}, which this run does not have",
                        path=path,
                        fix="import votes into the run (or a copy of the run) they were made on",
                    )
            earlier = by_id.get(vote.id)
            if earlier is not None and not _same_vote(earlier[1], vote):
                raise RefigError(
                    f"{where} reuses vote id {vote.id} of line {earlier[0]} for a different vote",
                    path=path,
                )
            by_id[vote.id] = (number, vote)
            found.append((number, vote))
    return found


def import_votes(store: RunStore, path: Path) -> ImportResult:
    """Merge a JSONL file of votes into the run (all or nothing: any bad line stops the import)."""
    attempts = store.keys(Attempt)
    tasks = {k[0] for k in store.keys(Task)} | {k[0] for k in attempts}
    configs = {k[0] for k in store.keys(Configuration)} | {k[1] for k in attempts}
    incoming = _read(path, tasks, configs)
    held = {v.id: v for v in store.iter(Preference)}
    writes: dict[str, Preference] = {}
    added = retracted = unchanged = 0
    for number, vote in incoming:
        current = writes.get(vote.id) or held.get(vote.id)
        if current is None:
            writes[vote.id] = vote
            added += 1
        elif not _same_vote(current, vote):
            raise RefigError(
                f"line {number} of {path}: vote {vote.id} is stored in this run with other "
                "content (a different annotator, task, order or choice)",
                path=path,
                fix="vote ids are random; this file was edited or comes from elsewhere",
            )
        elif current.active and not vote.active:
            writes[vote.id] = vote
            retracted += 1
        else:
            unchanged += 1
    store.put_many(writes.values(), replace=True)
    return ImportResult(added, retracted, unchanged)
