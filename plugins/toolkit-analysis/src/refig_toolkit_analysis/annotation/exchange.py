"""Moving human judgments (votes, ratings) between runs as JSON lines: one record a line.

Export writes every record, retracted ones included. Import merges by record id: a new id is
added, a known one is left alone, except that a retraction of a record held active is applied;
an import never brings a retracted record back. So importing twice adds nothing, and machines
can exchange files in any order and converge. An import is all or nothing: any bad line stops
it with an error naming the file and the line, and nothing is written.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TypeVar

from pydantic import ValidationError
from refig.errors import RefigError, problems
from refig.models import Attempt, Configuration, Preference, Rating, Task
from refig.store import TABLES, RunStore

RECORD_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{7,63}$")
ANNOTATOR = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$")
#: A vote or a rating is well under a kilobyte; a longer line is not one.
MAX_LINE_BYTES = 1 << 16

Human = TypeVar("Human", Preference, Rating)
#: Checks one parsed record against the run; returns what is wrong with it, or None.
Check = Callable[[Human], "str | None"]
_NOUN = {Preference: "vote", Rating: "rating"}


@dataclass(frozen=True)
class ImportResult:
    """What an import changed: new records, retractions applied, records already held."""

    added: int
    retracted: int
    unchanged: int


def export_records(store: RunStore, model: type[Human], out: IO[str]) -> int:
    """Every record of the kind, retracted ones included, one JSON object a line."""
    return store.export(TABLES[model].name, "jsonl", out)


def run_ids(store: RunStore) -> tuple[set[str], set[str]]:
    """The run's task ids and configuration ids (from its tasks, configurations and attempts)."""
    attempts = store.keys(Attempt)
    tasks = {k[0] for k in store.keys(Task)} | {k[0] for k in attempts}
    configs = {k[0] for k in store.keys(Configuration)} | {k[1] for k in attempts}
    return tasks, configs


def _same(a: Human, b: Human) -> bool:
    """Equal in everything but the retraction."""
    unset = {"retracted_at": None}
    return a.model_copy(update=unset) == b.model_copy(update=unset)


def _read(path: Path, model: type[Human], check: Check[Human]) -> list[tuple[int, Human]]:
    noun = _NOUN[model]
    fix = f"each line must be one {noun} as `refig annotate export` writes it"
    found: list[tuple[int, Human]] = []
    by_id: dict[str, tuple[int, Human]] = {}
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise RefigError(f"cannot read {path}: {exc.strerror}", path=path) from exc
    with handle:
        for number, raw in enumerate(iter(lambda: handle.readline(MAX_LINE_BYTES + 1), b""), 1):
            where = f"line {number} of {path}"
            if len(raw) > MAX_LINE_BYTES:
                raise RefigError(f"{where} is longer than {MAX_LINE_BYTES} bytes", path=path,
                                 fix=fix)
            if not raw.strip():
                continue
            try:
                record = model.model_validate_json(raw)
            except ValidationError as exc:
                raise RefigError(f"{where} is not a {noun}: {problems(exc, most=1)}", path=path,
                                 fix=fix) from exc
            if not RECORD_ID.match(record.id) or not ANNOTATOR.match(record.annotator):
                raise RefigError(f"{where} has a malformed {noun} id or annotator name",
                                 path=path, fix=fix)
            problem = check(record)
            if problem is not None:
                raise RefigError(f"{where} {problem}", path=path,
                                 fix=f"import {noun}s into the run (or a copy of the run) they "
                                 "were made on")
            earlier = by_id.get(record.id)
            if earlier is not None and not _same(earlier[1], record):
                raise RefigError(f"{where} reuses {noun} id {record.id} of line {earlier[0]} "
                                 f"for a different {noun}", path=path)
            by_id[record.id] = (number, record)
            found.append((number, record))
    return found


def import_records(store: RunStore, path: Path, model: type[Human],
                   check: Check[Human]) -> ImportResult:
    """Merge a JSONL file of records into the run (all or nothing, see the module)."""
    incoming = _read(path, model, check)
    held = {r.id: r for r in store.iter(model)}
    writes: dict[str, Human] = {}
    added = retracted = unchanged = 0
    noun = _NOUN[model]
    for number, record in incoming:
        current = writes.get(record.id) or held.get(record.id)
        if current is None:
            writes[record.id] = record
            added += 1
        elif not _same(current, record):
            raise RefigError(
                f"line {number} of {path}: {noun} {record.id} is stored in this run with other "
                "content (a different annotator, task, configuration or answer)",
                path=path, fix=f"{noun} ids are random; this file was edited or comes from "
                "elsewhere")
        elif current.active and not record.active:
            writes[record.id] = record
            retracted += 1
        else:
            unchanged += 1
    store.put_many(writes.values(), replace=True)
    return ImportResult(added, retracted, unchanged)
