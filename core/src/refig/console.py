"""Terminal output: one stderr console for progress and messages, stdout for results."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from rich.console import Console, RenderableType
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
from rich.table import Table
from rich.text import Text

err = Console(stderr=True, highlight=False)
out = Console(highlight=False)


#: Words up to this long are never broken across lines in a table; longer tokens (paths,
#: hashes, URLs) may fold.
WHOLE_WORD = 26


def _plain(cell: RenderableType) -> str:
    if isinstance(cell, Text):
        return cell.plain
    return Text.from_markup(cell).plain if isinstance(cell, str) else ""


def print_table(console: Console, table: Table) -> None:
    """Print ``table`` without breaking a word apart.

    When it does not fit as rich lays it out, each column gets its longest word (up to
    ``WHOLE_WORD``) and a share of the rest of the width in proportion to what it would like;
    a table whose words alone are wider than the console is printed at the width they need
    (a pipe gets the whole table; rich would otherwise cut words, "sema/ntic").
    """
    natural = console.measure(table, options=console.options.update(max_width=1 << 16)).maximum
    if natural <= console.width:
        console.print(table)
        return
    texts = [[_plain(column.header), *map(_plain, column.cells)] for column in table.columns]
    least = [min(WHOLE_WORD, max(len(w) for text in col for w in text.split() or [""]))
             for col in texts]
    most = [max(max(len(line) for line in text.splitlines() or [""]) for text in col)
            for col in texts]
    frame = len(table.columns) + 1 + sum(table.padding[1] + table.padding[3]
                                         for _ in table.columns)
    spare = console.width - frame - sum(least)
    wants = [max(0, m - n) for m, n in zip(most, least, strict=True)]
    for column, n, want in zip(table.columns, least, wants, strict=True):
        column.width = n + (spare * want // sum(wants) if spare > 0 and sum(wants) else 0)
    if spare >= 0:
        console.print(table)
        return
    width = console.width
    console.width = frame + sum(least)  # rich clamps print(width=...) to the console's width
    try:
        console.print(table)
    finally:
        console.width = width


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
        if f.get("elsewhere"):
            text.append(f" {f['elsewhere']} done elsewhere", style="yellow")
        return text


class _RateColumn(ProgressColumn):
    def render(self, task: Task) -> Text:
        elapsed = task.elapsed or 0.0
        here = task.completed - task.fields.get("elsewhere", 0)  # the rate is this process's
        if here <= 0 or elapsed <= 0:
            return Text("-/min", style="dim")
        return Text(f"{here / elapsed * 60:.1f}/min", style="magenta")


@dataclass
class Tracker:
    """Counts of long work: started, succeeded, failed, done by another process working on the
    same run (its leases, see :mod:`refig.claims`); safe to update from threads."""

    total: int
    description: str
    ok: int = 0
    failed: int = 0
    running: int = 0
    elsewhere: int = 0
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
        """Items already done in an earlier run: left out of the bar."""
        with self._lock:
            self.total -= n
            if self._progress is not None and self._task is not None:
                self._progress.update(self._task, total=self.total)

    def done_elsewhere(self, n: int = 1) -> None:
        """Items another process did meanwhile: shown as done (``N done elsewhere``), not in
        this process's rate."""
        if n <= 0:
            return
        with self._lock:
            self.elsewhere += n
            self._refresh(n)

    def _refresh(self, advance: int) -> None:
        if self._progress is not None and self._task is not None:
            self._progress.update(
                self._task, advance=advance, ok=self.ok, failed=self.failed, running=self.running,
                elsewhere=self.elsewhere,
            )

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started_at

    def summary(self) -> str:
        """``12 done, 1 failed in 3m02s (4.3/min)``."""
        n = self.ok + self.failed
        rate = n / self.elapsed * 60 if self.elapsed > 0 else 0.0
        elsewhere = f", {self.elsewhere} done elsewhere" if self.elsewhere else ""
        return (
            f"{self.description}: {self.ok} done, {self.failed} failed{elsewhere} "
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
        tracker._task = progress.add_task(description, total=total, ok=0, failed=0, running=0,
                                          elsewhere=0)
        yield tracker
    err.print(tracker.summary())
