"""Wall and CPU seconds per stage of an evaluation, for ``refig evaluate --json`` and the
throughput benchmarks (CPU seconds hardly change with other work on the machine; wall does)."""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def live_descendants_cpu() -> float:
    """CPU seconds so far of this process's live descendants (a warm LibreOffice kept across
    stages, whose time reaches ``RUSAGE_CHILDREN`` only when it ends); 0 without /proc."""
    children: dict[int, list[int]] = {}
    used: dict[int, float] = {}
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        pid = int(entry.name)
        children.setdefault(int(fields[1]), []).append(pid)
        used[pid] = (int(fields[11]) + int(fields[12])) / _TICKS
    total, stack = 0.0, list(children.get(os.getpid(), ()))
    while stack:
        pid = stack.pop()
        total += used.get(pid, 0.0)
        stack.extend(children.get(pid, ()))
    return total


def cpu_seconds() -> float:
    """CPU seconds of this process, of its children that ended, and of its live descendants."""
    ended = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + ended.ru_utime + ended.ru_stime + live_descendants_cpu()


@dataclass
class StageTimes:
    """Seconds spent in each stage (``metric <name>`` for each metric), summed over its blocks."""

    wall: dict[str, float] = field(default_factory=dict)
    cpu: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Add the wall and CPU seconds of the block to stage ``name``."""
        started, cpu = time.perf_counter(), cpu_seconds()
        try:
            yield
        finally:
            self.wall[name] = self.wall.get(name, 0.0) + time.perf_counter() - started
            self.cpu[name] = self.cpu.get(name, 0.0) + cpu_seconds() - cpu

    def as_json(self) -> dict[str, dict[str, float]]:
        """``seconds`` and ``cpu_seconds`` by stage, to the millisecond."""
        return {"seconds": {name: round(value, 3) for name, value in self.wall.items()},
                "cpu_seconds": {name: round(value, 3) for name, value in self.cpu.items()}}
