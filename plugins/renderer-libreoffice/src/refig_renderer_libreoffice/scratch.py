"""The renderer's scratch directories (profiles, batches), marked with their owner and reaped.

Each renderer works in ``$TMPDIR/refig-libreoffice-*`` holding an ``owner`` file (pid and the
process's start time, so a reused pid is not taken for the owner). A renderer that starts first
clears what a killed one left: for every such directory of this user whose owner is gone, it
kills any LibreOffice process still using it (the guard normally has already) and removes it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
import time
from pathlib import Path

PREFIX = "refig-libreoffice-"
OWNER_FILE = "owner"
#: A directory without an owner file (made by an older refig, or just being made) counts as
#: abandoned only once it is this old.
UNMARKED_GRACE_S = 3600.0


def _start_time(pid: int) -> str | None:
    """The kernel's start time of ``pid`` (field 22 of its stat), or None when it is not running."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return fields[19] if len(fields) > 19 and fields[0] not in {"Z", "X"} else None


def make_workdir() -> Path:
    """A new scratch directory marked as this process's."""
    path = Path(tempfile.mkdtemp(prefix=PREFIX))
    (path / OWNER_FILE).write_text(f"{os.getpid()} {_start_time(os.getpid()) or ''}\n")
    return path


def abandoned(path: Path, *, now: float | None = None) -> bool:
    """True when ``path`` belongs to this user and its owner process no longer runs."""
    try:
        if path.stat().st_uid != os.getuid():
            return False
        marker = (path / OWNER_FILE).read_text().split()
    except FileNotFoundError:
        try:
            age = (now or time.time()) - path.stat().st_mtime
        except OSError:
            return False
        return age > UNMARKED_GRACE_S
    except OSError:
        return False
    if not marker or not marker[0].isdigit():
        return True
    started = _start_time(int(marker[0]))
    return started is None or (len(marker) > 1 and started != marker[1])


def _users_of(path: Path) -> set[int]:
    """Process groups of the live processes whose command line names ``path``."""
    needle = str(path).encode()
    groups: set[int] = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if needle not in (entry / "cmdline").read_bytes():
                continue
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] not in {"Z", "X"}:
            groups.add(int(fields[2]))
    return groups


def reap_abandoned(root: Path | None = None) -> list[Path]:
    """Kill the converters of dead owners' directories under ``root`` and remove them."""
    root = Path(root or tempfile.gettempdir())
    reaped: list[Path] = []
    for path in root.glob(f"{PREFIX}*"):
        if not path.is_dir() or not abandoned(path):
            continue
        for group in _users_of(path):
            if group > 1 and group != os.getpgrp():
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(group, signal.SIGKILL)
        shutil.rmtree(path, ignore_errors=True)
        reaped.append(path)
    return reaped
