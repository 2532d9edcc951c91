"""Starting attempt processes, and ending every process an attempt started at its deadline.

A process tree can try to outlive its deadline: background jobs, ``setsid`` daemons, double
forks that reparent to init. Each attempt's processes therefore carry a marker in their
environment (``REFIG_ATTEMPT_ID``), start in a new session, and are ended by a sweep of ``/proc``
that stops, then kills, the session's process group, every descendant of the root, and every
process whose environment holds the marker, repeating until nothing new appears. Under bubblewrap
the sandbox's PID namespace ends everything inside it as well (see :mod:`refig.running.sandbox`).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

MARKER = "REFIG_ATTEMPT_ID"
_PROC = Path("/proc")
#: How long :func:`kill_tree` waits for the processes it killed to end (SIGKILL is delivered when
#: each is next scheduled: a fork bomb's were still there when the call returned).
KILL_WAIT_S = 5.0


@dataclass(frozen=True)
class ProcessResult:
    """How a process ended: its exit code (negative: killed by that signal) and whether the
    deadline ended it."""

    exit_code: int | None
    timed_out: bool
    seconds: float


def _table() -> dict[int, tuple[int, int]]:
    """pid -> (ppid, process group) for every process visible in /proc."""
    table: dict[int, tuple[int, int]] = {}
    for entry in _PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
        fields = stat.rsplit(")", 1)[-1].split()
        if len(fields) >= 3:
            table[int(entry.name)] = (int(fields[1]), int(fields[2]))
    return table


def _marked(pids: Sequence[int], marker: str) -> set[int]:
    """The pids whose environment has ``REFIG_ATTEMPT_ID`` starting with ``marker``."""
    needle = f"{MARKER}={marker}".encode()
    found: set[int] = set()
    for pid in pids:
        try:
            environ = (_PROC / str(pid) / "environ").read_bytes()
        except OSError:
            continue
        if any(item.startswith(needle) for item in environ.split(b"\0")):
            found.add(pid)
    return found


def _members(root: int | None, marker: str | None) -> set[int]:
    table = _table()
    found: set[int] = set()
    if root is not None:
        found |= {pid for pid, (_, group) in table.items() if group == root}
        children: dict[int, list[int]] = {}
        for pid, (parent, _) in table.items():
            children.setdefault(parent, []).append(pid)
        stack = [root]
        while stack:
            pid = stack.pop()
            found.add(pid)
            stack.extend(children.get(pid, ()))
    if marker:
        found |= _marked(list(table), marker)
    found.discard(os.getpid())
    return {pid for pid in found if pid in table}


def _running(pid: int) -> bool:
    """Whether ``pid`` has not ended yet (a zombie has: it holds only its exit status)."""
    try:
        state = (_PROC / str(pid) / "stat").read_text().rsplit(")", 1)[-1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def kill_tree(root: int | None = None, marker: str | None = None) -> int:
    """Stop, then kill, ``root``'s group and descendants and every process marked ``marker``,
    and wait (at most :data:`KILL_WAIT_S`) until they have ended.

    Processes are stopped first so that none can fork while the sweep runs; the sweep repeats
    until it finds nothing new. Returns how many processes were killed.
    """
    stopped: set[int] = set()
    for _ in range(20):
        fresh = _members(root, marker) - stopped
        if not fresh:
            break
        for pid in fresh:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGSTOP)
        stopped |= fresh
    ending: set[int] = set()
    for pid in stopped:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
            ending.add(pid)
    deadline = time.monotonic() + KILL_WAIT_S
    while ending and time.monotonic() < deadline:
        ending = {pid for pid in ending if _running(pid)}
        if ending:
            time.sleep(0.005)
    return len(stopped)


def run_process(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    deadline: float,
    marker: str,
    stdout: IO[bytes] | None = None,
    stderr: IO[bytes] | None = None,
    stdin_data: bytes | None = None,
) -> ProcessResult:
    """Run ``argv`` to completion or until ``deadline`` (a ``time.monotonic()`` value).

    Whatever happens (normal exit, deadline, an exception in the caller), every process the
    command left behind is ended before this returns.
    """
    started = time.monotonic()
    child_env = {**env, MARKER: marker}
    proc = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=child_env,
        stdin=subprocess.PIPE if stdin_data is not None else subprocess.DEVNULL,
        stdout=stdout if stdout is not None else subprocess.DEVNULL,
        stderr=stderr if stderr is not None else subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
    )
    timed_out = False
    try:
        proc.communicate(stdin_data, timeout=max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        timed_out = True
    finally:
        kill_tree(proc.pid, marker)
        proc.wait()
    return ProcessResult(proc.returncode, timed_out, time.monotonic() - started)
