"""Provenance files: which paper, repository and license each figure comes from.

Accepted shapes: a JSON list of objects, a JSON object holding such a list under ``files`` /
``figures`` / ``items``, a JSON object keyed by file name, or a CSV file with a header. Each entry
names its figure under ``file`` (or ``filename``, ``path``, ``name``, ``image``); the
``manifest.json`` of refig's real-figures collection is a JSON list of this kind.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from refig.plugin import FileRefused, RefigError, read_confined

FILE_KEYS = ("file", "filename", "path", "name", "image")
MAX_BYTES = 20_000_000


class ProvenanceError(RefigError):
    """A provenance file that cannot be read."""


def _entries(data: Any, path: Path) -> list[dict[str, Any]]:
    if isinstance(data, dict):
        for key in ("files", "figures", "items"):
            if isinstance(data.get(key), list):
                return _entries(data[key], path)
        if all(isinstance(v, dict) for v in data.values()):
            return [{"file": k, **v} for k, v in data.items()]
    if isinstance(data, list) and all(isinstance(e, dict) for e in data):
        return data
    raise ProvenanceError(
        "provenance must be a list of objects, an object with a `files` list, or an object "
        "keyed by file name", path=path,
    )


def _read(path: Path, inside: Path | None) -> str:
    """The file's text; one found in the imported folder (``inside``) is read without following
    links, so a link there to a file elsewhere is refused, not imported."""
    if inside is not None:
        try:
            return read_confined(path, inside, max_bytes=MAX_BYTES).decode("utf-8-sig")
        except FileRefused as exc:
            raise ProvenanceError(f"refused: {exc}", fix="replace the link with the file, or "
                                  "pass --provenance FILE") from None
    if not path.is_file():
        raise ProvenanceError("provenance file not found", path=path)
    if path.stat().st_size > MAX_BYTES:
        raise ProvenanceError(f"provenance file is over {MAX_BYTES:,} bytes", path=path)
    return path.read_text(encoding="utf-8-sig")


def load(path: Path, inside: Path | None = None) -> dict[str, dict[str, Any]]:
    """Entries keyed by the file name they describe (a path relative to the folder, or a name);
    ``inside``: the folder ``path`` was found in (see :func:`_read`)."""
    text = _read(path, inside)
    if path.suffix.lower() == ".csv":
        rows = list(csv.DictReader(io.StringIO(text)))
        entries = [{k: v for k, v in row.items() if k is not None} for row in rows]
    else:
        try:
            entries = _entries(json.loads(text), path)
        except json.JSONDecodeError as exc:
            raise ProvenanceError(f"not valid JSON: {exc}", path=path,
                                  fix="use JSON, or CSV with a .csv extension") from exc
    keyed: dict[str, dict[str, Any]] = {}
    for number, entry in enumerate(entries, 1):
        key = next((str(entry[k]) for k in FILE_KEYS if entry.get(k)), None)
        if key is None:
            raise ProvenanceError(f"entry {number} names no file (one of: {', '.join(FILE_KEYS)})",
                                  path=path)
        keyed[key.replace("\\", "/").removeprefix("./")] = entry
    return keyed


def lookup(entries: dict[str, dict[str, Any]], relative: str) -> dict[str, Any] | None:
    """The entry for a file given by its path relative to the folder (or its bare name)."""
    return entries.get(relative) or entries.get(Path(relative).name)
