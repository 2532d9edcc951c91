"""The suite format: ``suite.json``, ``tasks.jsonl`` and the assets they point to.

A suite directory is written by a builder through :class:`SuiteWriter` (assets first, the manifest
last, so a half-written suite is never mistaken for a whole one) and read with :meth:`Suite.load`.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from refig.errors import RefigError, UsageError, problems
from refig.image_headers import MAX_PIXELS, HeaderError, image_size
from refig.migration import manifest_v1, refuse, task_v1
from refig.models import SCHEMA_VERSION, Asset, SuiteManifest, Task
from refig.store import sha256_file

SUITE_FILE = "suite.json"
TASKS_FILE = "tasks.jsonl"


class SuiteError(RefigError):
    """A suite directory that cannot be read as a suite."""


class NotASuite(SuiteError, UsageError):
    """The path given as a suite holds none (a usage error, as for a path that is no run)."""


def _write_atomic(path: Path, data: bytes) -> None:
    """Write through a temporary file and a rename, so a reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def inside(root: Path, relative: str) -> Path:
    """Resolve ``relative`` under ``root``, refusing paths that escape it."""
    path = (root / relative).resolve()
    if not path.is_relative_to(root.resolve()):
        raise SuiteError(f"path {relative!r} leaves the suite directory", path=root / SUITE_FILE)
    return path


def read_task_lines(path: Path) -> Iterator[tuple[int, Task | ValidationError]]:
    """Each non-blank line of a tasks file with its number: the task, or why it is not one.

    Undecodable bytes are replaced rather than raised, so they show up as an invalid line.
    """
    with path.open(encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, 1):
            if line.strip():
                try:
                    yield number, Task.model_validate_json(line)
                except ValidationError as exc:
                    yield number, exc


def migrate_suite(root: Path) -> None:
    """Rewrite a version 1 suite (``kind``, ``source``) as version 2 in place; refuse versions
    this code does not know. A suite already at version 2 is left untouched."""
    manifest_path = root / SUITE_FILE
    try:
        raw = json.loads(manifest_path.read_bytes())
    except (OSError, ValueError):
        return  # the manifest check reports it
    version = raw.get("schema_version", 1) if isinstance(raw, dict) else SCHEMA_VERSION
    if version == SCHEMA_VERSION:
        return
    if version != 1:
        raise refuse(str(version), manifest_path)
    tasks_path = root / TASKS_FILE
    lines = []
    if tasks_path.is_file():
        for line in tasks_path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                lines.append(json.dumps(task_v1(json.loads(line)), ensure_ascii=False) + "\n")
    try:
        _write_atomic(tasks_path, "".join(lines).encode())
        _write_atomic(manifest_path, json.dumps(manifest_v1(raw), indent=2).encode())
    except OSError as exc:
        raise SuiteError(
            f"cannot migrate this version 1 suite in place: {exc}", path=root,
            fix="copy the suite somewhere writable and point at the copy",
        ) from exc


def _why_not_a_suite(root: Path) -> str:
    """What a path given as a suite is instead."""
    from refig.store import DB_NAME

    if not root.exists():
        return "it does not exist"
    if not root.is_dir():
        return "it is a file"
    if (root / DB_NAME).is_file():
        return "it is a run: give the suite the run was made from"
    return f"no {SUITE_FILE}"


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
            raise NotASuite(
                f"{root} is not a suite ({_why_not_a_suite(root)})",
                path=root,
                fix="build one with `refig suite build sample --out DIR`",
            )
        migrate_suite(root)
        try:
            manifest = SuiteManifest.model_validate_json(manifest_path.read_bytes())
        except ValidationError as exc:
            raise SuiteError(f"invalid {SUITE_FILE}: {problems(exc)}", path=manifest_path,
                             fix=f"`refig suite validate {root}` lists every problem") from exc
        tasks: list[Task] = []
        seen: set[str] = set()
        tasks_path = root / TASKS_FILE
        if not tasks_path.is_file():
            raise SuiteError(f"missing {TASKS_FILE}", path=tasks_path)
        for number, task in read_task_lines(tasks_path):
            if isinstance(task, ValidationError):
                raise SuiteError(
                    f"invalid task on line {number}: {problems(task)}", path=tasks_path,
                    fix=f"`refig suite validate {root}` lists every problem",
                ) from task
            if task.id in seen:
                raise SuiteError(
                    f"duplicate task id {task.id!r} on line {number}", path=tasks_path
                )
            seen.add(task.id)
            tasks.append(task)
        return cls(root=root, manifest=manifest, tasks=tuple(tasks))

    def input_path(self, task: Task, role: str) -> Path | None:
        """The task's input of ``role`` on disk, or None when it has none."""
        asset = task.input(role)
        return None if asset is None else inside(self.root, asset.path)

    def annotation(self, task: Task) -> dict[str, Any] | None:
        """The task's annotation, parsed, or None when the suite has none for it."""
        path = self.input_path(task, "annotation")
        return None if path is None else json.loads(path.read_text(encoding="utf-8"))

    def task(self, task_id: str) -> Task:
        for task in self.tasks:
            if task.id == task_id:
                return task
        raise KeyError(task_id)


class SuiteWriter:
    """Builds a suite directory: add tasks with their assets, then :meth:`finish`."""

    def __init__(self, root: Path | str, *, name: str, family: str, builder: str,
                 version: str = "1", params: Mapping[str, Any] | None = None,
                 description: str = "", created_at: datetime | None = None):
        """``created_at`` fixes the manifest's creation time (a seeded build is byte-identical)."""
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self._manifest: dict[str, Any] = dict(
            name=name, version=version, family=family, builder=builder,
            params=dict(params or {}), description=description)
        if created_at is not None:
            self._manifest["created_at"] = created_at
        self._tasks: list[Task] = []

    def asset(self, relative: str, data: bytes, *, visible: bool = True) -> Asset:
        """Write one input file under the suite directory and describe it."""
        _write_atomic(inside(self.root, relative), data)
        return Asset(path=relative, sha256=hashlib.sha256(data).hexdigest(), visible=visible)

    def add_task(self, task_id: str, inputs: Mapping[str, Asset], *,
                 instruction: str | None = None, cluster: str | None = None,
                 params: Mapping[str, Any] | None = None,
                 meta: Mapping[str, Any] | None = None) -> Task:
        """Remember one task whose inputs :meth:`asset` wrote."""
        task = Task(id=task_id, family=self._manifest["family"], inputs=dict(inputs),
                    instruction=instruction, cluster=cluster, params=dict(params or {}),
                    meta=dict(meta or {}))
        self._tasks.append(task)
        return task

    def add(self, task_id: str, source_name: str, source: bytes, *,
            annotation: Mapping[str, Any] | None = None, instruction: str | None = None,
            cluster: str | None = None, params: Mapping[str, Any] | None = None,
            meta: Mapping[str, Any] | None = None, role: str = "figure") -> Task:
        """Write one task's source (as input ``role``) and its hidden annotation, if any."""
        inputs = {role: self.asset(f"assets/{source_name}", source)}
        if annotation is not None:
            text = json.dumps(annotation, indent=2, sort_keys=True, ensure_ascii=False).encode()
            inputs["annotation"] = self.asset(f"annotations/{task_id}.json", text, visible=False)
        return self.add_task(task_id, inputs, instruction=instruction, cluster=cluster,
                             params=params, meta=meta)

    def set_params(self, **params: Any) -> None:
        """Record build parameters known only after adding tasks (skipped files, rejections)."""
        self._manifest["params"].update(params)

    def finish(self, tasks: Iterable[Task] | None = None) -> Suite:
        """Write ``tasks.jsonl`` and then ``suite.json``; return the loaded suite."""
        tasks = list(self._tasks if tasks is None else tasks)
        lines = "".join(t.model_dump_json(exclude_defaults=True) + "\n" for t in tasks)
        _write_atomic(self.root / TASKS_FILE, lines.encode())
        manifest = SuiteManifest(**self._manifest)
        _write_atomic(self.root / SUITE_FILE, manifest.model_dump_json(indent=2).encode())
        return Suite.load(self.root)


# --- validation ---------------------------------------------------------------------------------

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".webp", ".gif", ".bmp", ".tif", ".tiff"})


@dataclass(frozen=True)
class SuiteProblem:
    """One thing wrong with a suite directory: where (a file or ``task ID``) and what."""

    where: str
    message: str
    severity: str = "error"


@dataclass
class SuiteCheck:
    """What :func:`check_suite` found: the problems and how much it looked at."""

    root: Path
    tasks: int = 0
    files: int = 0
    images: int = 0
    problems: list[SuiteProblem] = field(default_factory=list)

    @property
    def errors(self) -> list[SuiteProblem]:
        return [p for p in self.problems if p.severity == "error"]

    @property
    def ok(self) -> bool:
        return not self.errors

    def add(self, where: str, message: str, severity: str = "error") -> None:
        self.problems.append(SuiteProblem(where, message, severity))


def _check_file(check: SuiteCheck, where: str, relative: str, expected: str | None) -> Path | None:
    """Check that ``relative`` stays inside the suite, exists and hashes to ``expected``."""
    if Path(relative).is_absolute() or "\\" in relative:
        check.add(where, f"path {relative!r} must be relative, with forward slashes")
        return None
    try:
        path = inside(check.root, relative)
    except SuiteError:
        check.add(where, f"path {relative!r} leaves the suite directory")
        return None
    if not path.is_file():
        check.add(where, f"{relative} is missing")
        return None
    check.files += 1
    actual = sha256_file(path)
    if expected is not None and actual != expected:
        check.add(where, f"{relative} has sha256 {actual[:12]}…, the task records {expected[:12]}…")
    return path


def _image_problem(path: Path, max_pixels: int) -> str | None:
    """Why the image at ``path`` is refused (unreadable header, too many pixels), or None."""
    try:
        width, height = image_size(path)
    except (OSError, HeaderError) as exc:
        return f"cannot read image {path}: {exc}"
    if width * height > max_pixels:
        return f"image {path} is {width}x{height} pixels, over the limit of {max_pixels:,}"
    return None


def check_suite(root: Path | str, *, max_pixels: int | None = None,
                on_task: Callable[[Task], None] | None = None) -> SuiteCheck:
    """Check a suite directory thoroughly, collecting every problem instead of stopping at one.

    Checks the manifest and every task line against the schema, that ids are unique and families
    agree, that every input stays inside the directory and matches its recorded
    sha256, that annotations are JSON objects, and that every image source's header declares a
    size within ``max_pixels`` (default :data:`refig.image_headers.MAX_PIXELS`). Files under
    ``assets/`` or ``annotations/`` that no task names are reported as warnings.
    """
    check = SuiteCheck(root=Path(root))
    try:
        migrate_suite(check.root)
    except RefigError as exc:
        check.add(SUITE_FILE, exc.message)
        return check
    manifest_path = check.root / SUITE_FILE
    manifest: SuiteManifest | None = None
    if not manifest_path.is_file():
        check.add(SUITE_FILE, f"{check.root} has no {SUITE_FILE}")
    else:
        try:
            manifest = SuiteManifest.model_validate_json(manifest_path.read_bytes())
        except ValidationError as exc:
            check.add(SUITE_FILE, f"does not match the schema: {problems(exc)}")
    tasks_path = check.root / TASKS_FILE
    if not tasks_path.is_file():
        check.add(TASKS_FILE, "missing")
        return check
    referenced: set[Path] = set()
    seen: set[str] = set()
    for number, task in read_task_lines(tasks_path):
        if isinstance(task, ValidationError):
            check.add(f"{TASKS_FILE}:{number}", f"does not match the task schema: {problems(task)}")
            continue
        check.tasks += 1
        where = f"task {task.id}"
        if task.id in seen:
            check.add(where, f"duplicate task id on line {number}")
        seen.add(task.id)
        if manifest is not None and task.family != manifest.family:
            check.add(where, f"family {task.family} differs from the suite's {manifest.family}")
        for role, asset in task.inputs.items():
            path = _check_file(check, where, asset.path, asset.sha256)
            if path is None:
                continue
            referenced.add(path)
            if path.suffix.lower() in IMAGE_SUFFIXES:
                problem = _image_problem(path, max_pixels or MAX_PIXELS)
                if problem:
                    check.add(where, f"{asset.path}: {problem}")
                else:
                    check.images += 1
            if role == "annotation":
                try:
                    if not isinstance(json.loads(path.read_bytes()), dict):
                        check.add(where, f"{asset.path} is not a JSON object")
                except (ValueError, UnicodeDecodeError) as exc:
                    check.add(where, f"{asset.path} is not valid JSON: {exc}")
        if on_task is not None:
            on_task(task)
    if check.tasks == 0 and not any(p.where.startswith(TASKS_FILE) for p in check.problems):
        check.add(TASKS_FILE, "holds no tasks")
    for folder in ("assets", "annotations"):
        base = check.root / folder
        if base.is_dir():
            for path in sorted(base.rglob("*")):
                if path.is_file() and path.resolve() not in referenced:
                    rel = path.relative_to(check.root).as_posix()
                    check.add(rel, "no task refers to this file", "warning")
    return check
