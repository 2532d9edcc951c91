"""Per-attempt directories, outside the suite and the run, and the clean environment of an attempt.

Each attempt gets ``<root>/<attempt id>/`` holding:

- ``workspace/``: the agent's working directory; starts with only ``source.<ext>`` and the
  workflow's files, and is where the agent leaves its family's deliverables (``slide.pptx``);
- ``home/``: ``HOME`` for the harness and the agent (CLI configs, caches, ``TMPDIR``);
- ``outputs/``: refig's attempt log and the harness's transcript, never visible to the agent.

The root defaults to ``$REFIG_WORKSPACE_ROOT``, else ``attempts`` in refig's cache
(:func:`refig.home.cache_dir`, ``~/.cache/refig``), not the system temp directory: some CLIs
refuse to keep state there. Directories are removed when the attempt ends; those left by a
killed run are swept when the next run starts. A directory kept on purpose
(``--keep-workspaces``) holds :data:`KEPT_FILE` and stays until the user removes it.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from refig.errors import UsageError
from refig.home import cache_dir
from refig.running.processes import MARKER
from refig.running.redact import SECRET_NAME

if TYPE_CHECKING:
    from refig.models import Asset, Task

SOURCE_STEM = "source"
OWNER_FILE = ".owner"
#: Present in a directory kept by ``--keep-workspaces``: no sweep removes it (``rm -r`` does).
KEPT_FILE = ".kept"
LOG_FILE = "attempt.log"

_PASSTHROUGH = ("LANG", "LC_ALL", "LC_CTYPE", "TZ", "SOURCE_DATE_EPOCH")


def source_name(task: Task) -> str:
    """The source's file name inside the workspace: ``source`` plus the original suffix."""
    asset = primary_input(task)
    suffix = Path(asset.path).suffix.lower() if asset is not None else ""
    suffix = suffix or ".png"
    return SOURCE_STEM + suffix


def primary_input(task: Task) -> Asset | None:
    """The task's first visible input (the figure, the deck): the one the agent works from."""
    return next(iter(task.visible_inputs().values()), None)


def input_name(task: Task, role: str) -> str:
    """Where a visible input lands in the workspace: the primary one as ``source.<ext>``, any
    other under its role (``data/points.csv``), keeping the file's suffix."""
    asset = task.inputs[role]
    primary = primary_input(task)
    if primary is not None and asset == primary:
        return source_name(task)
    suffix = Path(asset.path).suffix.lower()
    return role if Path(role).suffix or not suffix else role + suffix


def write_inputs(workspace: Path, task: Task, inputs: Mapping[str, bytes]) -> Path:
    """Put the task's visible inputs into the workspace; return the primary one's path."""
    for role, data in inputs.items():
        target = workspace / input_name(task, role)
        if not target.resolve().is_relative_to(workspace.resolve()):
            raise UsageError(f"input role {role!r} of task {task.id} leaves the workspace")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return workspace / source_name(task)


def default_root() -> Path:
    """Where attempt directories are made unless ``--workspace-root`` says otherwise."""
    if root := os.environ.get("REFIG_WORKSPACE_ROOT"):
        return Path(root).expanduser()
    return cache_dir() / "attempts"


def process_start_time(pid: int) -> str | None:
    """The kernel's start time of ``pid`` (guards against a reused pid), or None if gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[-1].split()[19]


@dataclass(frozen=True)
class AttemptDirs:
    """The directories of one attempt."""

    root: Path
    workspace: Path
    home: Path
    tmp: Path
    outputs: Path

    @property
    def log(self) -> Path:
        return self.outputs / LOG_FILE

    @classmethod
    def create(cls, parent: Path, attempt_id: str) -> AttemptDirs:
        """Make fresh, empty directories for ``attempt_id`` under ``parent``."""
        root = parent / attempt_id
        dirs = cls(root, root / "workspace", root / "home", root / "home" / "tmp",
                   root / "outputs")
        for path in (dirs.workspace, dirs.tmp, dirs.outputs):
            path.mkdir(parents=True)
        pid = os.getpid()
        (root / OWNER_FILE).write_text(f"{pid} {process_start_time(pid)}\n")
        return dirs

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def keep(self) -> None:
        """Mark the directory as kept on purpose, so later runs never sweep it as stale."""
        (self.root / KEPT_FILE).write_text("kept by --keep-workspaces; remove it with rm -r\n")


def sweep_stale(parent: Path) -> int:
    """Remove attempt directories whose owning process is gone (a killed run), except those kept
    on purpose; return how many."""
    removed = 0
    if not parent.is_dir():
        return 0
    for entry in parent.iterdir():
        owner = entry / OWNER_FILE
        if (entry / KEPT_FILE).exists():
            continue
        try:
            pid_text, start = owner.read_text().split()
            pid = int(pid_text)
        except (OSError, ValueError):  # not an attempt directory: leave it alone
            continue
        if process_start_time(pid) != start:
            shutil.rmtree(entry, ignore_errors=True)
            removed += 1
    return removed


def attempt_env(
    dirs: AttemptDirs, attempt_id: str, environ: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment an attempt starts from: locale, a ``PATH`` that finds this Python first,
    private ``HOME``/``TMPDIR``, refig's non-secret settings, the process marker; no secrets."""
    base = os.environ if environ is None else environ
    env = {name: base[name] for name in _PASSTHROUGH if name in base}
    env.setdefault("LANG", "C.UTF-8")
    env.update({
        name: value for name, value in base.items()
        if name.startswith("REFIG_") and not SECRET_NAME.search(name) and name != MARKER
    })
    path = [str(Path(sys.executable).parent), *base.get("PATH", "/usr/bin:/bin").split(os.pathsep)]
    env.update({
        "PATH": os.pathsep.join(dict.fromkeys(p for p in path if p)),
        "HOME": str(dirs.home),
        "TMPDIR": str(dirs.tmp),
        "XDG_CACHE_HOME": str(dirs.home / ".cache"),
        "XDG_CONFIG_HOME": str(dirs.home / ".config"),
        "PYTHONDONTWRITEBYTECODE": "1",
        "NO_COLOR": "1",
        "TERM": "dumb",
        MARKER: attempt_id,
    })
    return env


def check_outside(root: Path, *protected: Path) -> None:
    """Refuse an attempt root inside the suite or the run directory (the agent would see them)."""
    resolved = root.resolve()
    for path in protected:
        other = path.resolve()
        if resolved == other or other in resolved.parents:
            raise UsageError(
                f"the workspace root {root} lies inside {path}; attempts must not see it",
                fix="pass --workspace-root DIR (or set REFIG_WORKSPACE_ROOT) outside it",
            )
