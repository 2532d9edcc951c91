"""The suite format: ``suite.json``, ``tasks.jsonl`` and the assets they point to.

A suite directory is written by a builder through :class:`SuiteWriter` (assets first, the manifest
last, so a half-written suite is never mistaken for a whole one) and read with :meth:`Suite.load`.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from refig.errors import RefigError
from refig.models import SuiteManifest, Task
from refig.records import TaskKind

SUITE_FILE = "suite.json"
TASKS_FILE = "tasks.jsonl"


class SuiteError(RefigError):
    """A suite directory that cannot be read as a suite."""


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.replace(tmp, path)


def inside(root: Path, relative: str) -> Path:
    """Resolve ``relative`` under ``root``, refusing paths that escape it."""
    path = (root / relative).resolve()
    if not path.is_relative_to(root.resolve()):
        raise SuiteError(f"path {relative!r} leaves the suite directory", path=root / SUITE_FILE)
    return path


@dataclass(frozen=True)
class Suite:
    """A loaded suite: its manifest and tasks, with paths resolved against ``root``."""

    root: Path
    manifest: SuiteManifest
    tasks: tuple[Task, ...]

    @classmethod
    def load(cls, root: Path | str) -> Suite:
        """Read and validate ``suite.json`` and ``tasks.jsonl``."""
        root = Path(root)
        manifest_path = root / SUITE_FILE
        if not manifest_path.is_file():
            raise SuiteError(
                f"{root} is not a suite (no {SUITE_FILE})",
                path=root,
                fix="build one with `refig suite build sample --out DIR`",
            )
        try:
            manifest = SuiteManifest.model_validate_json(manifest_path.read_bytes())
        except ValidationError as exc:
            raise SuiteError(f"invalid {SUITE_FILE}: {exc}", path=manifest_path) from exc
        tasks: list[Task] = []
        seen: set[str] = set()
        tasks_path = root / TASKS_FILE
        if not tasks_path.is_file():
            raise SuiteError(f"missing {TASKS_FILE}", path=tasks_path)
        with tasks_path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                try:
                    task = Task.model_validate_json(line)
                except ValidationError as exc:
                    raise SuiteError(f"invalid task on line {number}: {exc}", path=tasks_path) from exc
                if task.id in seen:
                    raise SuiteError(f"duplicate task id {task.id!r} on line {number}", path=tasks_path)
                seen.add(task.id)
                tasks.append(task)
        return cls(root=root, manifest=manifest, tasks=tuple(tasks))

    def source_path(self, task: Task) -> Path:
        """The task's source file on disk."""
        return inside(self.root, task.source)

    def annotation(self, task: Task) -> dict[str, Any] | None:
        """The task's annotation, parsed, or None when the suite has none for it."""
        if task.annotation is None:
            return None
        return json.loads(inside(self.root, task.annotation).read_text(encoding="utf-8"))

    def task(self, task_id: str) -> Task:
        for task in self.tasks:
            if task.id == task_id:
                return task
        raise KeyError(task_id)


class SuiteWriter:
    """Builds a suite directory: add tasks with their assets, then :meth:`finish`."""

    def __init__(self, root: Path | str, *, name: str, kind: TaskKind | str, builder: str,
                 version: str = "1", params: Mapping[str, Any] | None = None,
                 description: str = ""):
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self._manifest = dict(name=name, version=version, kind=TaskKind(kind), builder=builder,
                              params=dict(params or {}), description=description)
        self._tasks: list[Task] = []

    def add(self, task_id: str, source_name: str, source: bytes, *,
            annotation: Mapping[str, Any] | None = None, instruction: str | None = None,
            cluster: str | None = None, params: Mapping[str, Any] | None = None,
            meta: Mapping[str, Any] | None = None) -> Task:
        """Write one task's source (and annotation) and remember the task."""
        source_rel = f"assets/{source_name}"
        _write_atomic(self.root / source_rel, source)
        annotation_rel = annotation_sha = None
        if annotation is not None:
            annotation_rel = f"annotations/{task_id}.json"
            text = json.dumps(annotation, indent=2, sort_keys=True, ensure_ascii=False).encode()
            _write_atomic(self.root / annotation_rel, text)
            annotation_sha = hashlib.sha256(text).hexdigest()
        task = Task(
            id=task_id, kind=self._manifest["kind"], source=source_rel,
            source_sha256=hashlib.sha256(source).hexdigest(), instruction=instruction,
            annotation=annotation_rel, annotation_sha256=annotation_sha, cluster=cluster, params=dict(params or {}),
            meta=dict(meta or {}),
        )
        self._tasks.append(task)
        return task

    def finish(self, tasks: Iterable[Task] | None = None) -> Suite:
        """Write ``tasks.jsonl`` and then ``suite.json``; return the loaded suite."""
        tasks = list(self._tasks if tasks is None else tasks)
        lines = "".join(t.model_dump_json(exclude_defaults=True) + "\n" for t in tasks)
        _write_atomic(self.root / TASKS_FILE, lines.encode())
        manifest = SuiteManifest(**self._manifest)
        _write_atomic(self.root / SUITE_FILE, manifest.model_dump_json(indent=2).encode())
        return Suite.load(self.root)
