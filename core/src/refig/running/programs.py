"""Running one program under the sandbox outside an attempt: what evaluation needs to execute
a generated program (a family's artifact) or a converter, with no network, a private workspace, a
memory cap, a cap on its processes (:mod:`refig.running.process_cap`) and a deadline after which
its whole process group is killed."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from refig.running.process_cap import DEFAULT_MAX_PROCESSES, process_cap
from refig.running.processes import run_process
from refig.running.sandbox import SandboxPolicy

#: At most this much of a program's stdout and of its stderr is kept (the rest is dropped).
MAX_OUTPUT_BYTES = 1 << 20
#: No file the program writes (its output included) may grow past this, under a memory cap.
MAX_FILE_BYTES = 256 << 20
#: Variables a program may inherit from refig's environment; nothing else (no keys) passes.
_PASSTHROUGH = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "SOURCE_DATE_EPOCH")


@dataclass(frozen=True)
class SandboxResult:
    """How a sandboxed program ended, with the head of what it printed."""

    exit_code: int | None
    stdout: bytes
    stderr: bytes
    timed_out: bool
    seconds: float
    #: How the process cap held (``cgroup:256``, ``uid:256``, ``rlimit:256``, ``none``).
    process_cap: str = "none"
    #: True when the cap refused the program a process; None when the mechanism cannot tell.
    process_limit_reached: bool | None = None


def _head(path: Path) -> bytes:
    with path.open("rb") as handle:
        return handle.read(MAX_OUTPUT_BYTES)


def run_sandboxed(
    argv: Sequence[str],
    *,
    workdir: Path,
    deadline_s: float,
    memory_mb: int | None = None,
    policy: SandboxPolicy | None = None,
    env: Mapping[str, str] | None = None,
    binds: Sequence[Path] = (),
    max_processes: int = DEFAULT_MAX_PROCESSES,
    cap_mechanism: str = "auto",
) -> SandboxResult:
    """Run ``argv`` in ``workdir`` (writable; everything else read-only or absent) for at most
    ``deadline_s`` seconds and ``memory_mb`` of address space; return its exit and output.

    ``policy`` defaults to bubblewrap when it works here, with no network. ``binds`` are extra
    host paths the program may read (an interpreter's libraries). ``env`` is the program's whole
    environment beyond ``HOME``/``TMPDIR`` (pointing into ``workdir``) and a few locale
    variables: refig's own (and its secrets) never reach it. At most ``max_processes`` tasks
    may exist at once, capped by ``cap_mechanism`` (see :mod:`refig.running.process_cap`).
    """
    policy = policy or SandboxPolicy.create("auto", network=False)
    workdir = Path(workdir).absolute()
    home = workdir / ".home"
    home.mkdir(exist_ok=True)
    child_env = {k: os.environ[k] for k in _PASSTHROUGH if k in os.environ}
    child_env |= {"HOME": str(home), "TMPDIR": str(home)}
    child_env |= dict(env or {})
    command = list(argv)
    if memory_mb is not None and (prlimit := shutil.which("prlimit")):
        command = [prlimit, f"--as={memory_mb << 20}", f"--fsize={MAX_FILE_BYTES}", "--",
                   *command]
    marker = f"refig-program-{os.getpid()}-{time.monotonic_ns()}"
    with (tempfile.TemporaryDirectory(prefix="refig-program-") as tmp,
          process_cap(max_processes, cap_mechanism) as cap):
        cap.hand_over(workdir)
        wrapped = policy.wrap(cap.inner(command), cwd=workdir, writable=[workdir],
                              readable=list(binds), network=False)
        out_path, err_path = Path(tmp) / "stdout", Path(tmp) / "stderr"
        with out_path.open("wb") as out, err_path.open("wb") as err:
            result = run_process(cap.outer(wrapped), cwd=workdir, env=child_env,
                                 deadline=time.monotonic() + deadline_s, marker=marker,
                                 stdout=out, stderr=err)
        return SandboxResult(exit_code=result.exit_code, stdout=_head(out_path),
                             stderr=_head(err_path), timed_out=result.timed_out,
                             seconds=result.seconds, process_cap=cap.record,
                             process_limit_reached=cap.reached())



def cap_holds(mechanism: str = "auto", limit: int = 16) -> bool:
    """True when ``mechanism`` really caps a program at ``limit`` tasks here: a harmless program
    starts four times ``limit`` sleeping children under the cap and some must be refused.

    Not "fewer than ``limit``": under the ``uid`` mechanism the allowance is shared with every
    other task of that uid, and one of them ending during the probe lets it start one more.
    """
    children = 4 * limit
    with tempfile.TemporaryDirectory(prefix="refig-cap-probe-") as work:
        probe = f"for i in $(seq {children}); do (echo s; sleep 2) & done 2>/dev/null; sleep 1"
        result = run_sandboxed(["/bin/sh", "-c", probe], workdir=Path(work), deadline_s=20,
                               max_processes=limit, cap_mechanism=mechanism)
    return result.stdout.count(b"s") < children
