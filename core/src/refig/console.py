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
    TaskID,
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
    """Print ``table`` within the console's width without breaking a word apart.

    When it does not fit as rich lays it out, each column gets its longest word (up to
    ``WHOLE_WORD``) and a share of the rest of the width in proportion to what it would like.
    When even the words do not fit, the columns are printed in parts, each part repeating the
    leading left-aligned columns that name the row (at most two), so no line is wider than the
    console (``COLUMNS`` in a pipe); a row's name keeps its whole line unless that takes more
    than half the width, and folds only when the console is too narrow for it beside the widest
    other column.
    """
    natural = console.measure(table, options=console.options.update(max_width=1 << 16)).maximum
    if natural <= console.width:
        console.print(table)
        return
    texts = [[_plain(column.header), *map(_plain, column.cells)] for column in table.columns]
    most = [max(max(len(line) for line in text.splitlines() or [""]) for text in col)
            for col in texts]
    words = [min(WHOLE_WORD, max(len(w) for text in col for w in text.split() or [""]))
             for col in texts]
    keys = _key_columns(table)
    # a column that must not wrap (the configuration that names the row) keeps its whole line
    least = [whole if column.no_wrap and whole <= console.width // (2 * keys) else word
             for column, whole, word in zip(table.columns, most, words, strict=True)]
    # the row's name folds when it leaves too little room for the widest other column
    room = console.width - _frame(table, keys + 1) - max(least[keys:], default=0)
    for k in range(keys):
        least[k] = max(4, min(least[k], room // keys))
    for column, n, whole in zip(table.columns, least, most, strict=True):
        column.no_wrap = column.no_wrap and n == whole
    parts = _parts(least, keys, console.width, _frame(table, 1) - _frame(table, 0))
    for n, part in enumerate(parts):
        piece = table if len(parts) == 1 else _columns_of(table, part, n, len(parts))
        _fit(console, piece, [least[k] for k in part], [most[k] for k in part])


def _frame(table: Table, columns: int) -> int:
    """Characters of borders and padding around ``columns`` columns."""
    return columns + 1 + columns * (table.padding[1] + table.padding[3])


def _key_columns(table: Table) -> int:
    """How many leading columns name the row: the first, and the second when it too must not
    wrap (``no_wrap``, as the terminal report marks a row's naming columns)."""
    second = len(table.columns) > 2 and table.columns[0].no_wrap and table.columns[1].no_wrap
    return 2 if second else 1


def _parts(least: list[int], keys: int, width: int, per_column: int) -> list[list[int]]:
    """Column indices in parts that fit ``width``, each starting with the ``keys`` columns."""
    head = list(range(keys))
    first = sum(least[k] + per_column for k in head) + 1
    parts: list[list[int]] = [list(head)]
    used = first
    for k in range(keys, len(least)):
        need = least[k] + per_column
        if used + need > width and len(parts[-1]) > keys:
            parts.append(list(head))
            used = first
        parts[-1].append(k)
        used += need
    return parts


def _columns_of(table: Table, part: list[int], n: int, count: int) -> Table:
    """A copy of ``table`` with the columns ``part``: the title on the first part, the caption on
    the last, each saying which part it is."""
    piece = Table(title=f"{table.title or ''} (columns {n + 1}/{count})".strip(),
                  title_justify=table.title_justify, title_style=table.title_style,
                  caption=table.caption if n == count - 1 else None,
                  caption_justify=table.caption_justify, padding=table.padding)
    for k in part:
        column = table.columns[k]
        piece.add_column(column.header, justify=column.justify, overflow="fold",
                         no_wrap=column.no_wrap)
    for cells in zip(*(list(table.columns[k].cells) for k in part), strict=True):
        piece.add_row(*cells)
    return piece


def _fit(console: Console, table: Table, least: list[int], most: list[int]) -> None:
    """Give each column its least width and a share of the spare width; print."""
    spare = console.width - _frame(table, len(table.columns)) - sum(least)
    wants = [max(0, m - n) for m, n in zip(most, least, strict=True)]
    for column, n, want in zip(table.columns, least, wants, strict=True):
        column.width = n + (spare * want // sum(wants) if spare > 0 and sum(wants) > 0 else 0)
    console.print(table)


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
    _task: TaskID | None = None
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
