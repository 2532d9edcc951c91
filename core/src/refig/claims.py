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
from dataclasses import dataclass, field

from refig.running.workspace import process_start_time
from refig.store import RunStore

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
