"""Bringing version 1 runs and suites forward to :data:`refig.models.SCHEMA_VERSION` 2.

Version 1 knew one family's shape: a task had a ``kind``, a ``source`` and an optional
``annotation``; a render held one PNG; an inspection held an object tree. Version 2 holds inputs
by role, pages and a family structure. Each row is rewritten once, in place and in one
transaction, keeping every key, so metric values and judgments stay attached to their artifacts.
The role a task's ``source`` takes is its family's ``source_role``, asked of the installed family
(a family not installed is refused, naming it). A version this code does not know is refused
with one line naming the file and the fix.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from refig.errors import RefigError, UnknownPluginError
from refig.models import SCHEMA_VERSION
from refig.records import TaskFamilyRecord

#: The role a version 1 task's ``source`` takes, by the task's family (its kind).
SourceRole = Callable[[str], str]


class MigrationError(RefigError):
    """A run or suite written by a refig version this one cannot read."""


def installed_source_role(family: str) -> str:
    """The ``source_role`` of the installed task family ``family``, from this process's
    registry; a family not installed (or with no source input) is a :class:`MigrationError`."""
    from refig.engine.plugins import registry

    try:
        record = registry().family(family).record
    except UnknownPluginError:
        record = None
    role = record.source_role if isinstance(record, TaskFamilyRecord) else None
    if role is None:
        raise MigrationError(
            f"version 1 tasks of the {family} family need that family's source role, and no "
            f"installed family {family} declares one",
            fix=f"install the plugin providing the {family} task family (refig-family-{family}), "
            "or enable it if it is disabled (`refig list-plugins` shows each plugin's status), "
            "then open it again",
        )
    return role


def task_v1(row: dict[str, Any], source_role: SourceRole = installed_source_role
            ) -> dict[str, Any]:
    """A version 1 task (``kind``, ``source``, ``annotation``) as version 2 (inputs by role)."""
    if "family" in row:
        return row
    row = dict(row)
    kind = row.pop("kind")
    inputs = {
        source_role(kind): {
            "path": row.pop("source"), "sha256": row.pop("source_sha256"), "visible": True,
        }
    }
    annotation, annotation_sha = row.pop("annotation", None), row.pop("annotation_sha256", None)
    if annotation is not None and annotation_sha is not None:
        inputs["annotation"] = {"path": annotation, "sha256": annotation_sha, "visible": False}
    return {"id": row.pop("id"), "family": kind, "inputs": inputs, **row}


def manifest_v1(row: dict[str, Any]) -> dict[str, Any]:
    """A version 1 suite manifest (``kind``) as version 2 (``family``)."""
    row = dict(row)
    if "kind" in row:
        row["family"] = row.pop("kind")
    row["schema_version"] = SCHEMA_VERSION
    return row


def render_v1(row: dict[str, Any]) -> dict[str, Any]:
    """A version 1 render (one PNG) as version 2 (a tuple of pages)."""
    if "pages" in row:
        return row
    row = dict(row)
    png, width, height = row.pop("png_sha256", None), row.pop("width_px", None), row.pop(
        "height_px", None
    )
    row["pages"] = (
        [{"index": 0, "png_sha256": png, "width_px": width or 0, "height_px": height or 0}]
        if png else []
    )
    return row


def inspection_v1(row: dict[str, Any]) -> dict[str, Any]:
    """A version 1 inspection (``tree``) as version 2 (the tree as the family structure)."""
    if "structure" in row:
        return row
    row = dict(row)
    row["structure"] = row.pop("tree", None)
    return row


def v1_tables(source_role: SourceRole) -> dict[str, Callable[[dict[str, Any]], dict[str, Any]]]:
    """Store tables whose rows change between version 1 and 2, with the rewrite of one row."""
    return {
        "tasks": lambda row: task_v1(row, source_role),
        "renders": render_v1,
        "inspections": inspection_v1,
    }


def refuse(version: str, path: Path) -> MigrationError:
    """The one-line refusal of a schema this version does not know."""
    return MigrationError(
        f"schema version {version} is not one this refig reads (it reads 1 and {SCHEMA_VERSION})",
        path=path,
        fix="open it with the refig version that wrote it, or start a new run or suite",
    )


def migrate_store(db: sqlite3.Connection, version: str, path: Path,
                  source_role: SourceRole = installed_source_role) -> None:
    """Rewrite a version 1 run store to version 2, inside the caller's transaction (a refusal
    raised midway rolls it back, leaving the store at version 1)."""
    if version != "1":
        raise refuse(version, path)
    tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    for table, rewrite in v1_tables(source_role).items():
        if table not in tables:
            continue
        keys = [c[1] for c in db.execute(f'PRAGMA table_info("{table}")') if c[5] > 0]
        cols = ", ".join(f'"{k}"' for k in keys)
        where = " AND ".join(f'"{k}" = ?' for k in keys)
        for *key, data in db.execute(f'SELECT {cols}, data FROM "{table}"').fetchall():
            new = json.dumps(rewrite(json.loads(data)))
            db.execute(f'UPDATE "{table}" SET data = ? WHERE {where}', (new, *key))
    suite = db.execute("SELECT value FROM meta WHERE key='suite'").fetchone()
    if suite is not None:
        db.execute("UPDATE meta SET value = ? WHERE key='suite'",
                   (json.dumps(manifest_v1(json.loads(suite[0]))),))
    db.execute("UPDATE meta SET value = ? WHERE key='schema_version'", (str(SCHEMA_VERSION),))
    db.execute("INSERT OR REPLACE INTO meta VALUES ('migrated_from', '1')")

