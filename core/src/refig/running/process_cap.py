"""Capping how many processes (threads included) a sandboxed program may hold at once, so a fork
bomb fails inside its sandbox instead of filling the host's process table.

Mechanisms, best first (``auto`` takes the first that works here):

- ``cgroup``: a pids cgroup made for the one program and removed after (cgroup v1's pids
  hierarchy, or cgroup v2 with the pids controller enabled), when refig may write there. It
  counts only the program's own tasks and says afterwards whether the cap was reached.
- ``uid``: when refig runs as root without such a cgroup, the program runs as the unprivileged
  uid ``nobody`` under RLIMIT_NPROC (the kernel does not enforce RLIMIT_NPROC for root).
- ``rlimit``: RLIMIT_NPROC alone, when refig is not root.

RLIMIT_NPROC counts every task of the uid, so the limit is set to the tasks the uid already has
plus the cap, and programs running at once under one uid share the allowance.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from refig.errors import UsageError

MECHANISMS = ("auto", "cgroup", "uid", "rlimit", "none")
#: Tasks a program may hold at once: a plotting program needs a handful (LaTeX a few more).
DEFAULT_MAX_PROCESSES = 256
#: Tasks an attempt's command (a harness CLI, its tools and their threads) may hold at once.
#: Attempts are capped only by a pids cgroup: the ``uid`` mechanism would take the harness's own
#: home and caches from it, and RLIMIT_NPROC would count every process of refig's user.
AGENT_MAX_PROCESSES = 2048
#: The unprivileged uid and gid a program runs as under the ``uid`` mechanism.
SANDBOX_UID = 65534
_PROBE_NAME = "refig-probe"
#: Names the mechanism ``auto`` takes (a machine without a writable pids cgroup, as root, uses
#: ``uid``: set ``REFIG_PROCESS_CAP=uid`` to run the tests that way on one that has one).
ENV_VAR = "REFIG_PROCESS_CAP"
#: The commands each mechanism starts programs with.
_TOOLS = {"uid": ("prlimit", "setpriv"), "rlimit": ("prlimit",)}


def _mounts() -> list[tuple[str, str, str]]:
    """(mount point, type, options) of every cgroup mount."""
    found = []
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/mounts").read_text().splitlines():
            parts = line.split()
            if len(parts) >= 4 and parts[2] in ("cgroup", "cgroup2"):
                found.append((parts[1], parts[2], parts[3]))
    return found


def _has_pids(mount: str, kind: str, options: str) -> bool:
    if kind == "cgroup":
        return "pids" in options.split(",")
    with contextlib.suppress(OSError):
        return "pids" in (Path(mount) / "cgroup.subtree_control").read_text().split()
    return False


@functools.cache
def pids_root() -> Path | None:
    """A cgroup directory under which refig can make pids cgroups (probed once), else None."""
    for mount, kind, options in _mounts():
        if not _has_pids(mount, kind, options):
            continue
        probe = Path(mount) / f"{_PROBE_NAME}-{os.getpid()}"
        try:
            probe.mkdir()
        except OSError:
            continue
        try:
            if (probe / "pids.max").is_file():
                return Path(mount)
        finally:
            with contextlib.suppress(OSError):
                probe.rmdir()
    return None


def resolve(requested: str = "auto") -> str:
    """The mechanism ``requested`` names, or for ``auto`` the one ``REFIG_PROCESS_CAP`` names
    (to try here what another machine will use), else the best one available here."""
    if requested == "auto":
        requested = os.environ.get(ENV_VAR) or "auto"
    if requested not in MECHANISMS:
        raise UsageError(f"unknown process cap {requested!r}; choose one of: "
                         f"{', '.join(MECHANISMS)}")
    if requested == "rlimit" and os.geteuid() == 0:
        raise UsageError("RLIMIT_NPROC does not hold for root", fix="use process cap 'uid'")
    if requested != "auto":
        missing = [tool for tool in _TOOLS.get(requested, ()) if not shutil.which(tool)]
        if missing:
            raise UsageError(f"process cap {requested!r} needs {' and '.join(missing)}, which "
                             "is not on PATH", fix="sudo apt-get install util-linux")
        return requested
    if pids_root() is not None:
        return "cgroup"
    if not shutil.which("prlimit"):
        return "none"
    if os.geteuid() == 0:
        return "uid" if shutil.which("setpriv") else "none"
    return "rlimit"


def agent_mechanism() -> str:
    """How attempts' commands are capped here: ``cgroup``, or ``none``."""
    return "cgroup" if resolve() == "cgroup" else "none"


def describe(mechanism: str) -> str:
    """One line saying how programs' processes are capped (for ``refig doctor``)."""
    return {
        "cgroup": f"a pids cgroup per program under {pids_root()}",
        "uid": f"an unprivileged uid ({SANDBOX_UID}) with RLIMIT_NPROC (refig runs as root and "
               "no pids cgroup is writable)",
        "rlimit": "RLIMIT_NPROC of refig's own uid (no pids cgroup is writable)",
        "none": "nothing: no writable pids cgroup, and prlimit (util-linux) is missing",
    }[mechanism]


def tasks_of(uid: int) -> int:
    """How many tasks (threads included) the real uid ``uid`` holds now."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if int(fields.get("Uid", "-1").split()[0]) == uid:
            total += int(fields.get("Threads", "1"))
    return total


@dataclass
class ProcessCap:
    """The cap on one program: wrap its command with :meth:`inner` (before the sandbox) and
    :meth:`outer` (after); read :attr:`record` and :meth:`reached` once it ended."""

    mechanism: str
    limit: int
    group: Path | None = None
    #: What the program runs as under the ``uid`` mechanism (it needs its workspace writable).
    uid: int | None = None
    _nproc: int = field(default=0, repr=False)

    @property
    def record(self) -> str:
        """How the cap held, for the execution record and logs: ``cgroup:256``, ``none``."""
        return "none" if self.mechanism == "none" else f"{self.mechanism}:{self.limit}"

    def inner(self, argv: Sequence[str]) -> list[str]:
        """``argv`` as it runs inside the sandbox: under the ``uid`` mechanism, as ``nobody``.

        It keeps only the right to read and search what the sandbox shows it (root's files
        included, as when it ran as root), so an interpreter under a private home still starts.
        """
        if self.mechanism != "uid":
            return list(argv)
        return ["setpriv", f"--reuid={SANDBOX_UID}", f"--regid={SANDBOX_UID}",
                "--clear-groups", "--inh-caps=+dac_read_search",
                "--ambient-caps=+dac_read_search", "--", *argv]

    def outer(self, argv: Sequence[str]) -> list[str]:
        """``argv`` (the whole sandboxed command) started under this cap."""
        if self.mechanism == "cgroup" and self.group is not None:
            procs = self.group / "cgroup.procs"
            return ["/bin/sh", "-c", 'echo $$ > "$0" && exec "$@"', str(procs), *argv]
        if self.mechanism in ("uid", "rlimit"):
            return ["prlimit", f"--nproc={self._nproc}", "--", *argv]
        return list(argv)

    def refusals(self) -> int | None:
        """How many times the cap refused a process so far; None when it cannot be told."""
        if self.group is None:
            return None
        with contextlib.suppress(OSError, ValueError):
            for line in (self.group / "pids.events").read_text().splitlines():
                name, _, count = line.partition(" ")
                if name == "max":
                    return int(count)
        return None

    def reached(self) -> bool | None:
        """True when the cap refused the program a process; None when it cannot be told."""
        count = self.refusals()
        return None if count is None else count > 0

    def hand_over(self, path: Path) -> None:
        """Under the ``uid`` mechanism, give ``path`` and all in it to the uid the program runs
        as, so it can write its workspace; otherwise nothing."""
        if self.uid is None:
            return
        for item in [path, *path.rglob("*")]:
            os.lchown(item, self.uid, self.uid)


def _remove(group: Path) -> None:
    """Kill whatever is left in ``group`` and remove it (a cgroup goes once its tasks are gone)."""
    for _ in range(50):
        with contextlib.suppress(OSError, ValueError):
            for pid in (group / "cgroup.procs").read_text().split():
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(int(pid), 9)
        try:
            group.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.02)


@contextlib.contextmanager
def process_cap(limit: int = DEFAULT_MAX_PROCESSES, mechanism: str = "auto",
                ) -> Iterator[ProcessCap]:
    """A cap of ``limit`` tasks for one program; its cgroup (if any) is removed on exit."""
    chosen = resolve(mechanism)
    if chosen == "cgroup":
        root = pids_root()
        if root is None:
            raise UsageError("no writable pids cgroup here", fix="use process cap 'auto'")
        group = root / f"refig-{os.getpid()}-{time.monotonic_ns()}"
        group.mkdir()
        try:
            (group / "pids.max").write_text(str(limit))
            yield ProcessCap("cgroup", limit, group=group)
        finally:
            _remove(group)
        return
    if chosen == "uid":
        yield ProcessCap("uid", limit, uid=SANDBOX_UID, _nproc=tasks_of(SANDBOX_UID) + limit)
        return
    if chosen == "rlimit":
        yield ProcessCap("rlimit", limit, _nproc=tasks_of(os.getuid()) + limit)
        return
    yield ProcessCap("none", limit)
