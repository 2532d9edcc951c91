"""Processes a test may look for after a program it ran has ended."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def processes_in(folder: Path) -> list[int]:
    """The processes still working in ``folder`` (a program's workspace), whatever their uid:
    a test's own folder says whose they are, where a count of a uid's tasks would also see
    other tests' programs running as the same user at the same time."""
    left = []
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            if entry.name.isdigit() and Path(os.readlink(entry / "cwd")).is_relative_to(folder):
                left.append(int(entry.name))
    return left
