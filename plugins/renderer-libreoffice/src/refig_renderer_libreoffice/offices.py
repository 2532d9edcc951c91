"""The profiles and warm offices of one process, shared by the renderers that convert alike.

Two ``libreoffice`` renderers that differ only in what they do with the PDF (their raster width)
convert a deck the same way, so they share one :class:`OfficePool`: the edit probes' renderer
(800 px) finds the offices the render stage's (1600 px) warmed, idle by then, instead of starting
two more: the probe stage took a third less time on 80 slides and a fifth less on 400
(docs/performance.md). The pool ends when the last renderer using it closes.
"""

from __future__ import annotations

import os
import shutil
import threading
from dataclasses import dataclass, field
from pathlib import Path

from refig_renderer_libreoffice.confinement import Confinement
from refig_renderer_libreoffice.convert import Converter, Profile
from refig_renderer_libreoffice.scratch import make_workdir
from refig_renderer_libreoffice.warm import WarmConverter


@dataclass(frozen=True)
class Conversion:
    """How decks become PDFs: renderers with equal conversions share a pool."""

    soffice: str
    timeout: float
    confinement: Confinement
    memory_bytes: int | None
    #: The interpreter with LibreOffice's ``uno`` module (None: one cold start per batch).
    python: str | None


@dataclass
class OfficePool:
    """A scratch folder, its profiles (each used by one call at a time) and their offices."""

    conversion: Conversion
    workdir: Path = field(default_factory=make_workdir)
    users: int = 0
    _idle: list[Profile] = field(default_factory=list)
    _made: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        c = self.conversion
        self.converter = Converter(soffice=c.soffice, workdir=self.workdir, timeout=c.timeout,
                                   confinement=c.confinement, memory_bytes=c.memory_bytes)
        self.warm = WarmConverter(python=c.python, soffice=c.soffice, workdir=self.workdir,
                                  timeout=c.timeout, confinement=c.confinement,
                                  memory_bytes=c.memory_bytes) if c.python else None

    def acquire(self) -> Profile:
        """A profile no other call uses: an idle one (its office warm) or a new one."""
        with self._lock:
            if self._idle:
                return self._idle.pop()
            self._made += 1
            return Profile(self.workdir / f"profile-{self._made}")

    def release(self, profile: Profile) -> None:
        """Give the profile back, its office still running."""
        with self._lock:
            self._idle.append(profile)

    def warm_up(self, offices: int) -> None:
        """Start up to ``offices`` offices now without waiting for them; nothing without UNO."""
        if self.warm is None:
            return
        profiles = [self.acquire() for _ in range(max(0, offices))]
        try:
            for profile in profiles:
                self.warm.start(profile)
        finally:
            for profile in reversed(profiles):
                self.release(profile)

    def close(self) -> None:
        """Stop the offices; remove the profiles and scratch files."""
        if self.warm is not None:
            self.warm.close()
        shutil.rmtree(self.workdir, ignore_errors=True)


_pools: dict[Conversion, OfficePool] = {}
_pools_lock = threading.Lock()


def _forget_in_child() -> None:
    """A forked child owns none of its parent's offices (their pipes are the parent's): its
    renderers start their own."""
    global _pools_lock
    _pools.clear()
    _pools_lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_in_child)


def join(conversion: Conversion) -> OfficePool:
    """The process's pool for ``conversion`` (made now when there is none), with one more
    user."""
    with _pools_lock:
        pool = _pools.get(conversion)
        if pool is None:
            pool = _pools[conversion] = OfficePool(conversion)
        pool.users += 1
        return pool


def leave(pool: OfficePool) -> None:
    """One user fewer; the last one closes the pool."""
    with _pools_lock:
        pool.users -= 1
        if pool.users > 0:
            return
        _pools.pop(pool.conversion, None)
    pool.close()
