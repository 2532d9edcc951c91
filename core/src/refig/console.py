"""Terminal output: one stderr console for progress and messages, stdout for results."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

err = Console(stderr=True, highlight=False)
out = Console(highlight=False)


def format_duration(seconds: float) -> str:
    """``75.2`` -> ``1m15s``."""
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s"


class _CountsColumn(ProgressColumn):
    def render(self, task: Task) -> Text:
        f = task.fields
        text = Text()
        text.append(f"✓{f.get('ok', 0)}", style="green")
        text.append(f" ✗{f.get('failed', 0)}", style="red" if f.get("failed") else "dim")
        text.append(f" ▶{f.get('running', 0)}", style="cyan")
        return text


class _RateColumn(ProgressColumn):
    def render(self, task: Task) -> Text:
        elapsed = task.elapsed or 0.0
        if task.completed == 0 or elapsed <= 0:
            return Text("-/min", style="dim")
        return Text(f"{task.completed / elapsed * 60:.1f}/min", style="magenta")


@dataclass
class Tracker:
    """Counts of long work: started, succeeded, failed; safe to update from threads."""

    total: int
    description: str
    ok: int = 0
    failed: int = 0
    running: int = 0
    started_at: float = field(default_factory=time.monotonic)
    _progress: Progress | None = None
    _task: int | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> None:
        """One item began."""
        with self._lock:
            self.running += 1
            self._refresh(0)

    def finish(self, ok: bool = True) -> None:
        """One item ended, well or not."""
        with self._lock:
            self.running = max(0, self.running - 1)
            if ok:
                self.ok += 1
            else:
                self.failed += 1
            self._refresh(1)

    def skip(self, n: int = 1) -> None:
        """Items already done in an earlier run: counted as done, not in the rate."""
        with self._lock:
            self.total -= n
            if self._progress is not None and self._task is not None:
                self._progress.update(self._task, total=self.total)

    def _refresh(self, advance: int) -> None:
        if self._progress is not None and self._task is not None:
            self._progress.update(
                self._task, advance=advance, ok=self.ok, failed=self.failed, running=self.running
            )

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started_at

    def summary(self) -> str:
        """``12 done, 1 failed in 3m02s (4.3/min)``."""
        n = self.ok + self.failed
        rate = n / self.elapsed * 60 if self.elapsed > 0 else 0.0
        return (
            f"{self.description}: {self.ok} done, {self.failed} failed "
            f"in {format_duration(self.elapsed)} ({rate:.1f}/min)"
        )


@contextmanager
def track(description: str, total: int, *, quiet: bool = False) -> Iterator[Tracker]:
    """A progress bar with done, failed, running, rate and an estimate; a summary at the end."""
    tracker = Tracker(total=total, description=description)
    if quiet or total == 0:
        yield tracker
        return
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        _CountsColumn(),
        _RateColumn(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
        console=err,
        transient=False,
    )
    with progress:
        tracker._progress = progress
        tracker._task = progress.add_task(description, total=total, ok=0, failed=0, running=0)
        yield tracker
    err.print(tracker.summary())
