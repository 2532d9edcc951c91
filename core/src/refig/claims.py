"""Work items claimed in the run store, so concurrent processes split a run's work.

Before a process makes an attempt or a judgment it claims the item's key in the ``claims`` table
of ``refig.db``: a lease naming its owner (pid, its start time, host) and an expiry, renewed by a
heartbeat while the work runs and dropped when the result is stored. A second ``refig run`` or
``refig evaluate`` on the same run skips items another live process holds. A lease whose owner
is gone (same host: the pid is dead or reused; any host: the lease expired) is taken over, so a
killed process never blocks the next run for long.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from refig.protocols import Executor
from refig.running.workspace import process_start_time
from refig.store import RunStore

T = TypeVar("T")
R = TypeVar("R")

#: Seconds a lease lasts without renewal (another host takes it over after this).
LEASE_SECONDS = 120.0
#: How often the heartbeat renews the leases a process holds.
HEARTBEAT_SECONDS = 30.0

_SCHEMA = (
    'CREATE TABLE IF NOT EXISTS "claims" (item TEXT PRIMARY KEY, pid INTEGER NOT NULL, '
    "started TEXT, host TEXT NOT NULL, token TEXT NOT NULL, expires REAL NOT NULL) WITHOUT ROWID"
)


@dataclass(frozen=True)
class Owner:
    """Who holds a lease: a process on a host (its start time guards against a reused pid)."""

    pid: int
    started: str | None
    host: str
    token: str

    @classmethod
    def me(cls) -> Owner:
        pid = os.getpid()
        return cls(pid, process_start_time(pid), socket.gethostname(),
                   f"{pid}-{time.monotonic_ns()}")

    def alive(self) -> bool:
        """Whether this owner may still be working (only checkable on this host)."""
        if self.host != socket.gethostname():
            return True
        return process_start_time(self.pid) == self.started


@dataclass
class Claims:
    """This process's leases on one run store; use as a context manager to keep them renewed."""

    store: RunStore
    lease: float = LEASE_SECONDS
    heartbeat: float = HEARTBEAT_SECONDS
    owner: Owner = field(default_factory=Owner.me)
    held: set[str] = field(default_factory=set)
    taken_over: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def __post_init__(self) -> None:
        self.store.db.execute(_SCHEMA)

    def claim(self, item: str) -> bool:
        """Take the lease on ``item``; False when another live owner holds it."""
        db = self.store.db
        now = time.time()
        db.execute("BEGIN IMMEDIATE")
        try:
            row = db.execute("SELECT pid, started, host, token, expires FROM claims "
                             "WHERE item = ?", (item,)).fetchone()
            if row is not None and row[3] != self.owner.token:
                holder = Owner(row[0], row[1], row[2], row[3])
                if row[4] > now and holder.alive():
                    db.execute("COMMIT")
                    return False
                self.taken_over += 1
            o = self.owner
            db.execute("INSERT OR REPLACE INTO claims VALUES (?, ?, ?, ?, ?, ?)",
                       (item, o.pid, o.started, o.host, o.token, now + self.lease))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        with self._lock:
            self.held.add(item)
        return True

    def release(self, item: str) -> None:
        """Drop the lease on ``item`` (its result is stored, or the work was abandoned)."""
        with self._lock:
            self.held.discard(item)
        self.store.db.execute("DELETE FROM claims WHERE item = ? AND token = ?",
                              (item, self.owner.token))

    def renew(self) -> None:
        """Push the expiry of every held lease forward."""
        with self._lock:
            items = list(self.held)
        if items:
            marks = ", ".join("?" * len(items))
            self.store.db.execute(
                f"UPDATE claims SET expires = ? WHERE token = ? AND item IN ({marks})",
                (time.time() + self.lease, self.owner.token, *items))

    def __enter__(self) -> Claims:
        self._thread = threading.Thread(target=self._beat, name="refig-claims", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.store.db.execute("DELETE FROM claims WHERE token = ?", (self.owner.token,))
        with self._lock:
            self.held.clear()

    def _beat(self) -> None:
        while not self._stop.wait(self.heartbeat):
            self.renew()
        self.store.close()  # this thread's connection


@dataclass
class ClaimedStage(Executor):
    """An executor for one deterministic stage whose work items are claimed as they are taken.

    A work item is one element (``grouped=False``) or a batch of elements (a render batch, one
    source's artifacts), each element with its own claim ``key``. Elements another live process
    holds are left out of the batch and waited for once the rest is done: when their owner stores
    them they are counted in ``elsewhere``; when it dies (or fails and lets go) they are taken over
    and done here. So two evaluations of one run split the work, and each ends with all of it.
    """

    inner: Executor
    claims: Claims
    key: Callable[[Any], str]
    stored: Callable[[Any], bool]
    grouped: bool = False
    poll: float = 0.5
    #: Elements found stored by another process instead of done here.
    elsewhere: int = 0

    def map(self, fn: Callable[[T], R], items: Sequence[T], *, jobs: int
            ) -> Iterator[tuple[T, R | BaseException]]:
        waiting: list[Any] = []
        yield from self._run(fn, items, jobs, waiting, fresh=True)
        while waiting:
            time.sleep(self.poll)
            again, waiting = waiting, []
            yield from self._run(fn, again, jobs, waiting, fresh=False)

    def close(self) -> None:
        self.inner.close()

    def _run(self, fn: Callable[[T], R], items: Iterable[Any], jobs: int, waiting: list[Any],
             *, fresh: bool) -> Iterator[tuple[T, R | BaseException]]:
        taken = self._take(items, waiting, fresh=fresh)
        for work, result in self.inner.map(fn, cast(Sequence[T], taken), jobs=jobs):
            try:
                yield work, result  # the consumer stores the result before this resumes
            finally:
                for element in self._elements(work):
                    self.claims.release(self.key(element))

    def _take(self, items: Iterable[Any], waiting: list[Any], *, fresh: bool) -> Iterator[Any]:
        """Each work item narrowed to the elements claimed here, as the executor asks for it."""
        for work in items:
            mine, held = [], []
            for element in self._elements(work):
                if not fresh and self.stored(element):
                    self.elsewhere += 1
                elif not self.claims.claim(self.key(element)):
                    held.append(element)
                elif self.stored(element):  # stored since the plan was made
                    self.claims.release(self.key(element))
                    self.elsewhere += 1
                else:
                    mine.append(element)
            if held:
                waiting.append(type(work)(held) if self.grouped else held[0])
            if mine:
                yield type(work)(mine) if self.grouped else mine[0]

    def _elements(self, work: Any) -> Sequence[Any]:
        return list(work) if self.grouped else [work]
