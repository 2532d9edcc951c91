"""Running one program under bubblewrap: no network, a private workspace, a deadline, a memory cap.

This is the contract's ``run_sandboxed`` (``refig.plugin``), written here against the same
signature until the core one lands, so switching is one import. The command sees the system
read-only, this Python environment read-only (Python programs run with it), a private ``/tmp``
and, writable, only ``workdir``; it has its own network namespace with nothing in it. Memory is
capped with ``prlimit --as`` (address space, so a runaway allocation fails inside the program).
Without bubblewrap the same deadline, process-tree kill and memory cap hold, but not isolation.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from refig.running.processes import run_process
from refig.running.sandbox import SandboxPolicy

#: Bytes of stdout or stderr kept; a program printing gigabytes is cut, not buffered.
MAX_OUTPUT = 256 * 1024


@dataclass(frozen=True)
class SandboxResult:
    """How a sandboxed command ended, with the head of its output."""

    exit_code: int | None
    stdout: bytes
    stderr: bytes
    timed_out: bool
    seconds: float


def _head(path: Path) -> bytes:
    with path.open("rb") as handle:
        data = handle.read(MAX_OUTPUT + 1)
    return data if len(data) <= MAX_OUTPUT else data[:MAX_OUTPUT] + b"\n[output cut]\n"


def run_sandboxed(
    argv: Sequence[str],
    *,
    workdir: Path,
    policy: SandboxPolicy | None = None,
    deadline_s: float,
    memory_mb: int,
    env: Mapping[str, str] | None = None,
    binds: Sequence[Path] = (),
) -> SandboxResult:
    """Run ``argv`` in ``workdir`` without network until it exits or ``deadline_s`` passes."""
    policy = policy or SandboxPolicy.create("auto")
    capped = ["prlimit", f"--as={memory_mb * 1024 * 1024}", "--", *argv]
    command = policy.wrap(capped, cwd=workdir, writable=[workdir], readable=list(binds),
                          network=False)
    with tempfile.TemporaryDirectory(prefix="refig-out-") as scratch:
        out, err = Path(scratch) / "stdout", Path(scratch) / "stderr"
        started = time.monotonic()
        with out.open("wb") as stdout, err.open("wb") as stderr:
            result = run_process(command, cwd=workdir, env=dict(env or {}),
                                 deadline=started + deadline_s, marker=f"refig-program-{id(out)}",
                                 stdout=stdout, stderr=stderr)
        return SandboxResult(result.exit_code, _head(out), _head(err), result.timed_out,
                             result.seconds)
