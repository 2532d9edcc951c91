"""A guard that ties a LibreOffice process group's life to the process that started it.

``soffice`` hands the work to ``oosplash``, which forks ``soffice.bin``; a parent-death signal
set on the first does not reach the last, so when refig is killed with SIGKILL the converter
would go on alone (parent 1) for the rest of its batch. Instead :func:`spawn` starts this file
as a session leader holding the read end of a pipe whose write end only the owner has; the
guard runs the command in its own process group and, when the pipe reaches end of file (the
owner is gone, however it died), kills the whole group. It uses only the standard library and
starts with ``python -I -S``, so it costs a few milliseconds per batch.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO


@dataclass
class Guarded:
    """A started process group: the guard process (the group's leader) and the owner's pipe end."""

    process: subprocess.Popen[bytes]
    lifeline: int

    def release(self) -> None:
        """Close the owner's end of the pipe (the guard then kills what is left of its group)."""
        with contextlib.suppress(OSError):
            os.close(self.lifeline)


def spawn(
    command: Sequence[str], *, env: dict[str, str], stderr: IO[bytes],
    stdin: int = subprocess.DEVNULL, stdout: int = subprocess.DEVNULL,
) -> Guarded:
    """Start ``command`` under a guard in a new session, ``stdin``/``stdout`` passed through to
    it; the caller must :meth:`Guarded.release`."""
    read_end, write_end = os.pipe()  # both ends non-inheritable: no other child holds them
    try:
        process = subprocess.Popen(
            [sys.executable, "-I", "-S", __file__, str(read_end), "--", *command],
            stdin=stdin,
            stdout=stdout,
            stderr=stderr,
            env=env,
            pass_fds=(read_end,),
            start_new_session=True,  # its own process group, killed as a whole
        )
    except BaseException:
        os.close(write_end)
        raise
    finally:
        os.close(read_end)
    return Guarded(process, write_end)


def _guard(lifeline: int, command: list[str]) -> int:
    """Run ``command``; return its exit code, or kill the group when ``lifeline`` closes."""
    child = subprocess.Popen(command)  # the guard's stdin and stdout, which it never uses
    exited = os.pidfd_open(child.pid)
    while True:
        ready, _, _ = select.select([lifeline, exited], [], [])
        if lifeline in ready and not os.read(lifeline, 1):  # end of file: the owner is gone
            os.killpg(0, signal.SIGKILL)
        if exited in ready:
            code = child.wait()
            if code < 0:  # died of a signal: die of the same one, so the owner sees it
                signal.signal(-code, signal.SIG_DFL)
                os.kill(os.getpid(), -code)
            return code


if __name__ == "__main__":
    arguments = sys.argv[1:]
    sys.exit(_guard(int(arguments[0]), arguments[2:]))

