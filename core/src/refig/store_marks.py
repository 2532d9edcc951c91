"""Telling a refig run store from an empty, truncated or foreign ``refig.db``.

A refig database carries ``PRAGMA application_id`` = :data:`APPLICATION_ID` (the bytes ``RFIG``),
and its run directory a marker file, :data:`MARKER`, written when the run is created. So a run
directory holding objects or the marker next to a missing or empty database is damage (never a
new run to start over in), and a SQLite file another program wrote is refused instead of having
refig's tables added to it. Databases written before the mark existed (a ``meta`` table with a
``schema_version``, no application id) are refig's and get the mark.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from refig.errors import RefigError

#: ``PRAGMA application_id`` of every refig run store: "RFIG" as a big-endian 32-bit integer.
APPLICATION_ID = int.from_bytes(b"RFIG", "big")
#: The file that says "this directory is a refig run", beside ``refig.db`` and ``objects/``.
MARKER = ".refig-run"
_SQLITE_MAGIC = b"SQLite format 3\x00"


class StoreDamaged(RefigError):
    """The run directory is refig's, but its database is missing, empty, not SQLite or
    malformed."""


def unreadable_store(exc: sqlite3.DatabaseError) -> RefigError:
    """A run store's SQLite error as the user's error: what it said (cut short, it may quote a
    whole row) and how to tell whether the database is damaged."""
    said = str(exc) if len(str(exc)) <= 160 else str(exc)[:160] + "..."
    return RefigError(f"a run store's database could not be read: {said}",
                      fix="`sqlite3 RUN/refig.db 'PRAGMA integrity_check'` says whether it is "
                      "damaged; if it is, restore refig.db from a backup (the objects are kept)")


def _has_objects(objects: Path) -> bool:
    return objects.is_dir() and any(p.is_file() for p in objects.rglob("*"))


def _is_run_dir(root: Path, objects: Path) -> bool:
    return (root / MARKER).is_file() or _has_objects(objects)


def check_database(root: Path, db_path: Path, objects: Path, *, creating: bool) -> bool:
    """Refuse a database refig must not open; return True when a new run may be created in it.

    ``creating`` is ``refig run``'s case: a directory that is not yet a run gets a new store.
    Every other command needs an existing, marked run.
    """
    fix_damage = (f"restore {db_path.name} from a backup (the objects are kept), or move "
                  f"{root} aside and start a new run")
    # the signs of a run first, then the database: a creator links the database before it makes
    # either sign, so a run seen here with no database is damage, not a creator half-way
    run_dir = _is_run_dir(root, objects)
    exists = db_path.is_file()
    wal = db_path.with_name(db_path.name + "-wal")
    # In WAL mode a new database's pages sit in the -wal file until a checkpoint: not empty.
    size = (db_path.stat().st_size if exists else 0) or (
        wal.stat().st_size if exists and wal.is_file() else 0)
    if size == 0:
        if run_dir:
            state = "is empty" if exists else "is missing"
            raise StoreDamaged(f"the run store's database {state}, but {root} holds a refig "
                               "run (its objects or marker): the run is damaged, not new",
                               path=db_path, fix=fix_damage)
        if not creating:
            state = "is empty" if exists else "does not exist"
            raise RefigError(f"{db_path} {state}: {root} is not a refig run", path=db_path,
                             fix="create one with `refig run --out DIR ...` or check the path")
        return True
    with db_path.open("rb") as handle:
        head = handle.read(len(_SQLITE_MAGIC))
    if head not in (_SQLITE_MAGIC, b""):
        raise StoreDamaged("cannot open the run store: file is not a database (not SQLite: "
                           "overwritten, or truncated)",
                           path=db_path, fix=fix_damage)
    try:
        with sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=60) as conn:
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
            tables = {r[0] for r in
                      conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            legacy = "meta" in tables and conn.execute(
                "SELECT 1 FROM meta WHERE key='schema_version'").fetchone() is not None
        conn.close()
    except sqlite3.DatabaseError as exc:
        if isinstance(exc, sqlite3.OperationalError):  # locked, unreadable: not damage
            raise
        raise StoreDamaged(f"the run store's database is damaged: {exc}", path=db_path,
                           fix=fix_damage) from exc
    if app_id == APPLICATION_ID or (app_id == 0 and legacy):
        return False
    if app_id == 0 and not tables:
        return _empty_database(root, db_path, objects, creating, fix_damage)
    owner = f"application id {app_id:#x}" if app_id else "tables " + ", ".join(sorted(tables)[:5])
    raise RefigError(
        f"{db_path} is another program's SQLite database ({owner}), not a refig run store",
        path=db_path,
        fix="point at a run directory written by `refig run`, or give --out a new directory",
    )


def _empty_database(root: Path, db_path: Path, objects: Path, creating: bool,
                    fix_damage: str) -> bool:
    """A SQLite file with no tables: a new run only when nothing says a run lived here."""
    if _is_run_dir(root, objects):
        raise StoreDamaged(f"the run store's database has no tables, but {root} holds a refig "
                           "run: the run is damaged, not new", path=db_path, fix=fix_damage)
    if not creating:
        raise RefigError(f"{db_path} holds no refig tables: {root} is not a refig run",
                         path=db_path, fix="create one with `refig run --out DIR ...`")
    return True


def mark(conn: sqlite3.Connection) -> None:
    """Stamp the database as a refig run store (idempotent)."""
    if conn.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")


def write_marker(root: Path) -> None:
    """Mark the directory as a refig run, once its database is committed (idempotent)."""
    marker = root / MARKER
    if not marker.is_file():
        marker.write_text("refig run store: refig.db (SQLite) and objects/ (by sha256)\n")
