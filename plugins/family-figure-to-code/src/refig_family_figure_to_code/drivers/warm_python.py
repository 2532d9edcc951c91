"""refig's warm Python server: matplotlib imported once, each program in a fresh fork.

Says ``REFIG-READY`` once loaded, then reads one job per line on stdin (tab-separated:
directory, program, image, width, height, dpi, deadline seconds) and answers
``REFIG-DONE<TAB>status`` on the original stdout. The fork is the reset: nothing a program
does survives it. Its output goes to ``refig-output.log`` in its directory; a fork past its
deadline is killed and reported as status 124.
"""

import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy  # noqa: F401  (imported once, shared by every fork)
import run_python

control = os.fdopen(os.dup(1), "w", buffering=1)
control.write("REFIG-READY\n")  # loaded: the first program's time starts now
for line in sys.stdin:
    if not line.strip():
        continue
    directory, program, image, width, height, dpi, deadline = line.rstrip("\n").split("\t")
    pid = os.fork()
    if pid == 0:
        os.setsid()
        os.chdir(directory)
        log = os.open("refig-output.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(log, 1)
        os.dup2(log, 2)
        sys.stdout = os.fdopen(1, "w", buffering=1)
        sys.stderr = os.fdopen(2, "w", buffering=1)
        os._exit(run_python.run(program, image, float(width), float(height), float(dpi)))
    ends = time.monotonic() + float(deadline)
    status = None
    while status is None:
        done, code = os.waitpid(pid, os.WNOHANG)
        if done:
            status = os.waitstatus_to_exitcode(code)
        elif time.monotonic() > ends:
            os.killpg(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            status = 124
        else:
            time.sleep(0.005)
    control.write(f"REFIG-DONE\t{status}\n")
