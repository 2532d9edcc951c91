"""Wall and CPU seconds per stage of an evaluation, for ``refig evaluate --json`` and the
throughput benchmarks (CPU seconds hardly change with other work on the machine; wall does)."""

from __future__ import annotations

import resource
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


def cpu_seconds() -> float:
    """CPU seconds of this process and of its children that ended (LibreOffice, say)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


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
