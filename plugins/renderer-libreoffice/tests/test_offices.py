"""The process's office pools: one per way of converting, ended by its last user, and never
inherited by a forked child (no LibreOffice runs here: the pools start none until asked)."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

from refig.running.sandbox import SandboxPolicy
from refig_renderer_libreoffice.confinement import Confinement
from refig_renderer_libreoffice.offices import Conversion, join, leave


def conversion(timeout: float = 5.0) -> Conversion:
    return Conversion(soffice="/bin/false", timeout=timeout,
                      confinement=Confinement(SandboxPolicy()), memory_bytes=None, python=None)


def test_equal_conversions_share_a_pool_that_the_last_user_ends() -> None:
    first, second = join(conversion()), join(conversion())
    other = join(conversion(timeout=6.0))
    try:
        assert first is second and other is not first
        assert first.users == 2 and first.workdir.is_dir()
        leave(first)
        assert second.workdir.is_dir()  # one user left
        profile = second.acquire()
        assert profile.path.parent == second.workdir
    finally:
        leave(second)
        leave(other)
    assert not first.workdir.exists() and not other.workdir.exists()
    fresh = join(conversion())
    try:
        assert fresh is not first  # an ended pool is never handed out again
    finally:
        leave(fresh)


def _child_pool(sent: multiprocessing.connection.Connection) -> None:
    pool = join(conversion())
    sent.send(str(pool.workdir))
    leave(pool)


def test_a_forked_child_starts_its_own_pool() -> None:
    parent = join(conversion())
    try:
        receive, send = multiprocessing.get_context("fork").Pipe(duplex=False)
        child = multiprocessing.get_context("fork").Process(target=_child_pool, args=(send,))
        child.start()
        workdir = Path(receive.recv())
        child.join(timeout=30)
        assert child.exitcode == 0
        assert workdir != parent.workdir  # not the parent's offices, whose pipes it shares
        assert parent.workdir.is_dir() and parent.users == 1
    finally:
        leave(parent)
