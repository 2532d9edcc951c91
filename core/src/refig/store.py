"""The run store: ``refig.db`` (SQLite in WAL mode) plus content-addressed ``objects/``.

Every record type has a table whose primary key is the record's natural key (an attempt is task x
configuration x try; a judgment is artifact x judge x rubric x repeat). Writes are ``INSERT ... ON
CONFLICT DO NOTHING`` in short transactions, and files are written to a temporary name and renamed,
so a process killed at any instant leaves either a whole record or none, and a resumed run skips
what exists. Several processes may write at once; SQLite serialises them.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import sqlite3
import tempfile
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, TypeVar

from refig.errors import RefigError, UsageError, did_you_mean
from refig.migration import migrate_store
from refig.models import (
    SCHEMA_VERSION,
    Attempt,
    Configuration,
    Deviation,
    Environment,
    Inspection,
    Judgment,
    MetricValue,
    Preference,
    Rating,
    Record,
    Render,
    SuiteManifest,
    Task,
    utcnow,
)
from refig.objects import ObjectStore as ObjectStore
from refig.objects import sha256_file as sha256_file
from refig.store_marks import MARKER, check_database, mark, write_marker

M = TypeVar("M", bound=Record)

DB_NAME = "refig.db"
#: What SQLite keeps beside a database (journal, write-ahead log, shared memory).
_SIDE_FILES = ("-journal", "-wal", "-shm")
OBJECTS_DIR = "objects"


@dataclass(frozen=True)
class Table:
    """How one record type is stored: its table name and the fields that form its key."""

    name: str
    model: type[Record]
    key: tuple[str, ...]


TABLES: dict[type[Record], Table] = {
    table.model: table
    for table in (
        Table("tasks", Task, ("id",)),
        Table("configurations", Configuration, ("id",)),
        Table("attempts", Attempt, ("task_id", "config_id", "try_index")),
        Table("inspections", Inspection, ("artifact_sha256", "inspector")),
        Table("renders", Render, ("artifact_sha256", "renderer", "settings")),
        Table("metrics", MetricValue, ("artifact_sha256", "metric", "name", "reference_sha256")),
        Table("judgments", Judgment,
              ("artifact_sha256", "judge_key", "rubric_sha256", "inputs_sha256", "repeat")),
        Table("preferences", Preference, ("id",)),
        Table("ratings", Rating, ("id",)),
        Table("environments", Environment, ("stage", "digest", "host")),
        Table("deviations", Deviation, ("entry", "used")),
    )
}
TABLES_BY_NAME: dict[str, Table] = {t.name: t for t in TABLES.values()}


def _key_value(record: Record, field: str) -> Any:
    value = getattr(record, field)
    return "" if value is None else value


class RunStore:
    """One run directory. Open it with :meth:`open` or :meth:`create`."""

    def __init__(self, root: Path, *, readonly: bool = False):
        self.root = Path(root)
        self.readonly = readonly
        self.db_path = self.root / DB_NAME
        self.objects = ObjectStore(self.root / OBJECTS_DIR)
        self._local = threading.local()

    @classmethod
    def create(cls, root: Path | str) -> RunStore:
        """Open a run directory, creating it when it does not exist.

        A new database is made whole under a temporary name and linked into place, so every
        other process sees no database or a complete one; of creators racing on one new run,
        the first link wins and the rest open the winner's.
        """
        store = cls(Path(root))
        store.root.mkdir(parents=True, exist_ok=True)
        new = check_database(store.root, store.db_path, store.objects.root, creating=True)
        if new and not store.db_path.exists() and not store._publish_new():
            check_database(store.root, store.db_path, store.objects.root, creating=True)
        store.objects.root.mkdir(exist_ok=True)
        store._migrate()
        return store

    def _publish_new(self) -> bool:
        """Build a marked database with the schema beside the run and link it in as
        ``refig.db``; False when another process linked its own first."""
        fd, name = tempfile.mkstemp(dir=self.root, prefix=f".{DB_NAME}.new-")
        os.close(fd)
        built = Path(name)
        try:
            conn = sqlite3.connect(built, isolation_level=None)
            try:
                self._write_schema(conn)
                conn.execute("PRAGMA journal_mode=WAL")  # in the header: every opener agrees
            finally:
                conn.close()  # the last connection: its log is checkpointed into the file
            try:
                os.link(built, self.db_path)
            except FileExistsError:
                return False
            return True
        finally:
            for leftover in (built, *(built.with_name(built.name + s) for s in _SIDE_FILES)):
                leftover.unlink(missing_ok=True)

    @classmethod
    def open(cls, root: Path | str, *, readonly: bool = False) -> RunStore:
        """Open an existing run directory; ``readonly`` opens SQLite with ``mode=ro``, so nothing
        (not even the schema) is ever written, for viewers of a run another process writes."""
        store = cls(Path(root), readonly=readonly)
        if not store.root.is_dir() or not (store.db_path.is_file() or store._damaged()):
            why = (f"no {DB_NAME}" if store.root.is_dir() else "it is a file, not a run "
                   "directory" if store.root.exists() else "it does not exist")
            raise UsageError(
                f"{store.root} is not a refig run ({why})",
                path=store.root,
                fix="create one with `refig run --out DIR ...` or check the path",
            )
        check_database(store.root, store.db_path, store.objects.root, creating=False)
        store._migrate()
        return store

    # --- connection -----------------------------------------------------------------------------

    @property
    def db(self) -> sqlite3.Connection:
        """A connection for this thread and process (connections never cross a fork)."""
        conn = getattr(self._local, "conn", None)
        if conn is None or getattr(self._local, "pid", None) != os.getpid():
            if self.readonly:
                uri = f"{self.db_path.resolve().as_uri()}?mode=ro"
                conn = sqlite3.connect(uri, uri=True, timeout=60, isolation_level=None)
            else:
                conn = sqlite3.connect(self.db_path, timeout=60, isolation_level=None)
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA busy_timeout=60000")
            self._local.conn, self._local.pid = conn, os.getpid()
        return conn

    def close(self) -> None:
        """Close this thread's connection."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def _damaged(self) -> bool:
        """A run directory whose database is gone (objects or the marker remain)."""
        return (self.root / MARKER).is_file() or self.objects.root.is_dir()

    def _migrate(self) -> None:
        try:
            self._check_schema() if self.readonly else self._create_schema()
        except sqlite3.DatabaseError as exc:  # not SQLite at all, or a damaged file
            raise RefigError(
                f"cannot open the run store: {exc}", path=self.db_path,
                fix="point at a run directory written by `refig run`, or start a new run",
            ) from exc

    def _check_schema(self) -> None:
        """Refuse a store of another schema version without writing anything."""
        row = self.db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        if row is None or row[0] != str(SCHEMA_VERSION):
            raise RefigError(
                f"run store schema {row[0] if row else 'unknown'} is not the current "
                f"{SCHEMA_VERSION}, and a read-only open does not migrate",
                path=self.db_path,
                fix="run `refig report RUN` once (it migrates the run in place), then view it",
            )

    def _create_schema(self) -> None:
        self._write_schema(self.db)
        write_marker(self.root)

    def _write_schema(self, db: sqlite3.Connection) -> None:
        """Make or migrate the tables and mark the database, in one transaction."""
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
            row = db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
            if row is None:
                db.execute(
                    "INSERT INTO meta VALUES ('schema_version', ?), ('created_at', ?)",
                    (str(SCHEMA_VERSION), utcnow().isoformat()),
                )
            elif row[0] != str(SCHEMA_VERSION):
                migrate_store(db, row[0], self.db_path)
            for table in TABLES.values():
                self._create_table(db, table)
            mark(db)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    @staticmethod
    def _create_table(db: sqlite3.Connection, table: Table) -> None:
        columns = ", ".join(f'"{k}" NOT NULL' for k in table.key)
        keys = ", ".join(f'"{k}"' for k in table.key)
        db.execute(
            f'CREATE TABLE IF NOT EXISTS "{table.name}" ({columns}, data TEXT NOT NULL, '
            f"created_at TEXT NOT NULL, PRIMARY KEY ({keys})) WITHOUT ROWID"
        )

    def _table(self, model: type[Record]) -> Table:
        table = TABLES.get(model)
        if table is None:
            raise KeyError(f"{model.__name__} is not stored in a run")
        if not self.readonly and not getattr(self._local, f"ready_{table.name}", False):
            self._create_table(self.db, table)
            setattr(self._local, f"ready_{table.name}", True)
        return table

    # --- records --------------------------------------------------------------------------------

    def put(self, record: Record, *, replace: bool = False) -> bool:
        """Store a record under its key; return False if one was there (and ``replace`` is off)."""
        return self.put_many([record], replace=replace) == 1

    def put_many(self, records: Iterable[Record], *, replace: bool = False) -> int:
        """Store records in one transaction; return how many were new or replaced."""
        rows: dict[Table, list[tuple[Any, ...]]] = {}
        now = utcnow().isoformat()
        for record in records:
            table = self._table(type(record))
            key = tuple(_key_value(record, k) for k in table.key)
            rows.setdefault(table, []).append((*key, record.model_dump_json(), now))
        if not rows:
            return 0
        db = self.db
        written = 0
        db.execute("BEGIN IMMEDIATE")
        try:
            for table, values in rows.items():
                marks = ", ".join("?" * (len(table.key) + 2))
                verb = "INSERT OR REPLACE" if replace else "INSERT OR IGNORE"
                for value in values:
                    cursor = db.execute(f'{verb} INTO "{table.name}" VALUES ({marks})', value)
                    written += cursor.rowcount
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return written

    def put_over_failed(self, record: Record) -> bool:
        """Store a record, replacing a stored one under its key only when that one failed: a
        result once made is never overwritten by a later write of the same key."""
        table = self._table(type(record))
        key = tuple(_key_value(record, k) for k in table.key)
        marks = ", ".join("?" * (len(table.key) + 2))
        keys = ", ".join(f'"{k}"' for k in table.key)
        cursor = self.db.execute(
            f'INSERT INTO "{table.name}" VALUES ({marks}) ON CONFLICT ({keys}) DO UPDATE SET '
            "data = excluded.data, created_at = excluded.created_at "
            f"WHERE json_extract(\"{table.name}\".data, '$.status') = 'failed'",
            (*key, record.model_dump_json(), utcnow().isoformat()),
        )
        return cursor.rowcount == 1

    def delete(self, model: type[Record], **key: Any) -> int:
        """Remove the records whose key fields equal the given values; return how many."""
        table = self._table(model)
        if not key or set(key) - set(table.key):
            raise KeyError(f"{table.name} rows are deleted by {table.key}, not {sorted(key)}")
        clause = " AND ".join(f'"{k}" = ?' for k in key)
        params = ["" if v is None else v for v in key.values()]
        return self.db.execute(f'DELETE FROM "{table.name}" WHERE {clause}', params).rowcount

    def get(self, model: type[M], **key: Any) -> M | None:
        """The record with exactly this key, or None."""
        found = self.query(model, **key)
        return found[0] if found else None

    def query(self, model: type[M], **where: Any) -> list[M]:
        """Records whose key fields equal the given values, in key order."""
        return list(self.iter(model, **where))

    def iter(self, model: type[M], **where: Any) -> Iterator[M]:
        """Like :meth:`query`, streaming."""
        table = self._table(model)
        unknown = set(where) - set(table.key)
        if unknown:
            raise KeyError(f"{table.name} can be filtered by {table.key}, not {sorted(unknown)}")
        clause = " AND ".join(f'"{k}" = ?' for k in where)
        sql = f'SELECT data FROM "{table.name}"' + (f" WHERE {clause}" if clause else "")
        sql += " ORDER BY " + ", ".join(f'"{k}"' for k in table.key)
        params = ["" if v is None else v for v in where.values()]
        for (data,) in self.db.execute(sql, params):
            yield model.model_validate_json(data)

    def keys(self, model: type[Record]) -> set[tuple[Any, ...]]:
        """Every stored key of a table, for cheap "is it done?" checks."""
        table = self._table(model)
        cols = ", ".join(f'"{k}"' for k in table.key)
        return {tuple(row) for row in self.db.execute(f'SELECT {cols} FROM "{table.name}"')}

    def count(self, model: type[Record]) -> int:
        table = self._table(model)
        return self.db.execute(f'SELECT count(*) FROM "{table.name}"').fetchone()[0]

    def fingerprint(self) -> str:
        """A token that changes whenever a record lands, at the cost of two ``stat`` calls (not a
        read of the tables, which grows with the run): every commit writes the write-ahead log
        and every checkpoint the database file, so their sizes and modification times change."""
        parts = []
        for path in (self.db_path, self.db_path.with_name(DB_NAME + "-wal")):
            try:
                found = path.stat()
            except FileNotFoundError:
                parts.append(f"{path.name}:-")
                continue
            parts.append(f"{path.name}:{found.st_size}:{found.st_mtime_ns}")
        return hashlib.sha256(";".join(parts).encode()).hexdigest()[:16]

    # --- run metadata ---------------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def suite(self) -> SuiteManifest | None:
        """The manifest of the suite this run was made from, if recorded."""
        raw = self.get_meta("suite")
        return None if raw is None else SuiteManifest.model_validate_json(raw)

    # --- export ---------------------------------------------------------------------------------

    def export(self, table_name: str, fmt: str, out: IO[str]) -> int:
        """Write a table as JSON lines or CSV, streaming; return the number of rows."""
        table = export_table(table_name, fmt)
        rows = (r.model_dump(mode="json") for r in self.iter(table.model))
        count = 0
        if fmt == "jsonl":
            for row in rows:
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
                count += 1
            return count
        writer = csv.DictWriter(out, fieldnames=list(table.model.model_fields))
        writer.writeheader()
        for row in rows:
            writer.writerow(
                {k: json.dumps(v) if isinstance(v, dict | list) else v for k, v in row.items()}
            )
            count += 1
        return count


EXPORT_FORMATS = ("jsonl", "csv")


def export_table(table_name: str, fmt: str) -> Table:
    """The table ``refig export`` names, checked with the format before anything is written."""
    table = TABLES_BY_NAME.get(table_name)
    if table is None:
        raise UsageError(
            f"unknown table {table_name!r}{did_you_mean(table_name, TABLES_BY_NAME)}; "
            f"tables: {', '.join(sorted(TABLES_BY_NAME))}"
        )
    if fmt not in EXPORT_FORMATS:
        raise UsageError(f"unknown format {fmt!r}; formats: {', '.join(EXPORT_FORMATS)}")
    return table
