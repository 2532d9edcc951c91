"""A warm interpreter: one sandboxed Python, R, Octave or xelatex process reused across programs.

Start-up dominates a small plotting program (importing matplotlib, loading R's graphics,
starting Octave, reading a LaTeX preamble), so a warm interpreter runs many programs in one
process: Python, R and Octave fork a fresh child per program from a server that loaded once
(matplotlib; R's graphics and ggplot2's namespace, not attached; Octave with its gnuplot
toolkit), so each program starts from the state a cold run starts from and nothing it does
survives it; xelatex is forked where a program's shared preamble ends (:mod:`.texfork`), one
server per preamble. So a warm server may capture by either protocol. All programs share one
sandbox (one workspace root, one memory cap), so warm mode trades some isolation for speed; the
default realiser runs one fresh process per program. A program past its deadline kills the
whole interpreter (Python kills only the fork), which restarts for the next program. MATLAB
itself, where installed, runs its programs cold (the warm server is Octave's).

The copy check's proof (:mod:`.input_watch`) spans the interpreter's whole life: whatever a
program reads can outlive it here (a file in the shared root or ``/tmp``, R's or Octave's
memory, a process left running), so every input image is watched from its placement to its
removal, and once anything has opened one, no later program of this interpreter is proven not
to copy.
A program that is not proven is run again with a decoy in a fresh process (:func:`.run_fresh`),
never in the interpreter, whose shared state could hand the decoy run a stashed figure.
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping
from dataclasses import replace
from importlib import resources
from pathlib import Path

from refig.plugin import SandboxPolicy
from refig_toolkit_agent.processes import ProcessCap, process_cap

from refig_family_figure_to_code import texfork, toolchains
from refig_family_figure_to_code.capture import FIGCODEBENCH, REFIG
from refig_family_figure_to_code.execution import (
    Execution,
    Limits,
    conclude,
    prepare,
    program_env,
    refuse,
    run_fresh,
    with_copy_check,
)
from refig_family_figure_to_code.input_watch import InputWatch
from refig_family_figure_to_code.languages import Language
from refig_family_figure_to_code.machine_caches import fontconfig_binds

WARM_LANGUAGES = (Language.PYTHON, Language.R, Language.MATLAB, Language.LATEX)
DONE = b"REFIG-DONE\t"
READY = b"REFIG-READY"
#: How long a fresh interpreter may take to load (its time is not the first program's).
START_TIMEOUT_S = 120.0
LOG = "refig-output.log"
QUEUE = "refig-queue.job"


class WarmInterpreter:
    """Runs programs of one language through one long-lived sandboxed interpreter."""

    def __init__(self, language: Language | str, limits: Limits | None = None,
                 policy: SandboxPolicy | None = None, shared: str = ""):
        """``shared``: for LaTeX, the preamble lines this server reads once
        (:func:`.texfork.split`); it serves only programs that begin with them."""
        self.language = Language.parse(str(language))
        if self.language not in WARM_LANGUAGES:
            raise ValueError(f"{self.language.value} has no warm interpreter")
        self.shared = shared
        #: What its runs are labelled as made by (MATLAB's server is GNU Octave).
        self._engine = (toolchains.OCTAVE if self.language is Language.MATLAB
                        else self.language.value)
        if self.language is Language.LATEX and not shared:
            raise ValueError("a warm xelatex needs the preamble lines it shares")
        self.limits = limits or Limits()
        self.policy = policy or SandboxPolicy.create("auto", network=False)
        self._root = Path(tempfile.mkdtemp(prefix="refig-warm-"))
        self._drivers = self._root / "drivers"
        self._drivers.mkdir()
        for name in ("run_python.py", "warm_python.py", "run_figure.R", "warm_figure.R",
                     "run_figure.m"):
            (self._drivers / name).write_bytes(
                resources.files("refig_family_figure_to_code.drivers").joinpath(name).read_bytes())
        self._proc: subprocess.Popen[bytes] | None = None
        #: The interpreter's process cap (one for its whole life), closed when it ends.
        self._caps = contextlib.ExitStack()
        self._cap: ProcessCap | None = None
        self._jobs = 0
        self._watch = (InputWatch.start(self._root.parent) if self.policy.mode == "bwrap"
                       else None)

    def _argv(self) -> tuple[list[str], dict[str, str], tuple[Path, ...]]:
        drivers = str(self._drivers)
        if self.language is Language.PYTHON:
            import sys

            return [sys.executable, "-I", f"{drivers}/warm_python.py"], {"MPLBACKEND": "Agg"}, ()
        if self.language is Language.LATEX:
            forking = texfork.library()
            if forking is None:
                raise RuntimeError("no C compiler to build xelatex's fork library: "
                                   "apt-get install gcc")
            (self._root / texfork.SERVER).write_text(texfork.server_source(self.shared),
                                                   encoding="utf-8")
            (self._root / texfork.PROGRAM).write_text("")  # found here, forked there
            cold = toolchains.launch(Language.LATEX, self._root, 0, 0, REFIG)
            job_name = Path(texfork.PROGRAM).stem
            return ([*cold.argv[:-1], f"-jobname={job_name}", texfork.SERVER],
                    {**cold.env, "LD_PRELOAD": str(forking)}, (*cold.binds, forking.parent))
        if self.language is Language.R:
            return ([shutil.which("Rscript") or "Rscript", "--vanilla",
                     f"{drivers}/warm_figure.R"], {"REFIG_WARM": "1", "REFIG_DRIVERS": drivers},
                    (Path("/etc/R"), *fontconfig_binds()))
        return ([shutil.which("octave") or "octave", "--no-gui", "--no-window-system", "--norc",
                 "--quiet", "--no-history", f"{drivers}/run_figure.m"], {"REFIG_WARM": "1"},
                (Path("/etc/octave"), *fontconfig_binds()))

    def _start(self) -> subprocess.Popen[bytes]:
        if self._proc is not None and self._proc.poll() is None:
            return self._proc
        argv, extra, binds = self._argv()
        self._cap = cap = self._caps.enter_context(process_cap(self.limits.max_processes))
        cap.hand_over(self._root)
        capped = ["prlimit", f"--as={self.limits.memory_mb << 20}", "--", *argv]
        command = cap.outer(self.policy.wrap(cap.inner(capped), cwd=self._root,
                                             writable=[self._root], readable=list(binds),
                                             network=False))
        stderr = (self._root / "interpreter.log").open("ab")
        self._proc = subprocess.Popen(command, cwd=self._root, env=program_env(self._root, extra),
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=stderr, start_new_session=True)
        stderr.close()
        if self._await(self._proc, READY, time.monotonic() + START_TIMEOUT_S) is None:
            self._kill()
            raise RuntimeError(f"the warm {self.language.value} interpreter did not start within "
                               f"{START_TIMEOUT_S:g} s (see interpreter.log in its workspace)")
        return self._proc

    def _kill(self) -> None:
        if self._proc is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self._proc.pid, signal.SIGKILL)
        self._proc.wait()
        self._proc = None
        self._caps.close()
        self._cap = None

    def _send(self, line: str) -> subprocess.Popen[bytes]:
        """Hand one job to the interpreter, restarting it if it died."""
        for _ in range(2):
            proc = self._start()
            if self.language is Language.MATLAB:  # Octave reads jobs from a file (see driver)
                staged = self._root / "refig-queue.tmp"
                staged.write_text(line + "\n")
                os.replace(staged, self._root / QUEUE)
                return proc
            assert proc.stdin is not None
            try:
                proc.stdin.write((line + "\n").encode())
                proc.stdin.flush()
                return proc
            except BrokenPipeError:
                self._kill()
        raise RuntimeError(f"the warm {self.language.value} interpreter does not start")

    def _await(self, proc: subprocess.Popen[bytes], prefix: bytes,
               deadline: float) -> bytes | None:
        """The rest of the first line the interpreter answers that starts with ``prefix``, or
        None at the deadline or when it dies."""
        assert proc.stdout is not None
        buffer = b""
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            ready, _, _ = select.select([proc.stdout], [], [], remaining)
            if not ready:
                return None
            chunk = os.read(proc.stdout.fileno(), 4096)
            if not chunk:
                return None
            buffer += chunk
            complete, _, buffer = buffer.rpartition(b"\n")
            for line in complete.splitlines():
                if line.startswith(prefix):
                    return line[len(prefix):]

    def execute(self, program: str | bytes, *, inputs: Mapping[str, Path] | None = None,
                width: int = 640, height: int = 480, protocol: str = REFIG) -> Execution:
        """Run one program in the warm interpreter (a fresh job directory, the same process),
        its copies of inputs checked as a cold run's are (a decoy run, if needed, runs cold)."""
        refused = refuse(program, self.language)
        if refused is not None:
            return refused
        given = inputs or {}
        # The decoy run is a fresh process: this one's root, /tmp and memory may hold what an
        # earlier program read (a stashed figure would make the decoy run repeat the picture).
        return with_copy_check(self._once(program, given, width, height, protocol), given,
                               lambda swapped: run_fresh(program, self.language, swapped,
                                                         width=width, height=height,
                                                         limits=self.limits,
                                                         protocol=protocol))

    def _once(self, program: str | bytes, inputs: Mapping[str, Path], width: int, height: int,
              protocol: str) -> Execution:
        self._jobs += 1
        job = self._root / f"job-{self._jobs:06d}"
        job.mkdir()
        try:
            prepared = prepare(job, program, self.language, inputs, protocol, self._watch)
            if self.language is Language.LATEX:
                self._write_rest(job)
            refused_before = self._refusals()
            fields = self._job_fields(job, width, height, protocol)
            self._start()  # waits for a fresh interpreter to load: that is not the program's time
            if self._cap is not None:
                self._cap.hand_over(job)
            started = time.monotonic()
            proc = self._send("\t".join(fields))
            # Python's server enforces the deadline itself; a little slack for its answer.
            answer = self._await(proc, DONE, started + self.limits.deadline_s + 2)
            status = None if answer is None else int(answer.strip())
            seconds = time.monotonic() - started
            timed_out = status is None or status == 124
            log = job / LOG
            output = log.read_bytes()[:256 * 1024] if log.is_file() else b""
            refused_after = self._refusals()
            reached = (None if refused_before is None or refused_after is None
                       else refused_after > refused_before)
            record = self._cap.record if self._cap is not None else ""
            if status is None:
                self._kill()
            execution = conclude(prepared, exit_code=status, timed_out=timed_out,
                                 output=output, seconds=seconds,
                                 toolchain=f"{self._engine} (warm)", width=width,
                                 deadline_s=self.limits.deadline_s, process_cap=record,
                                 process_limit_reached=reached, protocol=protocol)
            unopened = self._watch is not None and self._watch.untouched()
            return replace(execution, inputs_unopened=unopened)
        finally:
            if self._watch is not None:
                self._watch.before_removal(job)
            shutil.rmtree(job, ignore_errors=True)
            if self._watch is not None:
                self._watch.after_removal()

    def _job_fields(self, job: Path, width: int, height: int, protocol: str) -> list[str]:
        """The line that hands ``job`` to this language's server (see its driver)."""
        if self.language is Language.LATEX:
            return [str(job)]
        saves_itself = protocol == FIGCODEBENCH and self.language is Language.PYTHON
        fields = [str(job), toolchains.RUN_NAMES[self.language],
                  "" if saves_itself else toolchains.CAPTURE, str(width), str(height)]
        if self.language is Language.PYTHON:
            return [*fields, str(toolchains.DPI), f"{self.limits.deadline_s:g}"]
        return [*fields, protocol]

    def _write_rest(self, job: Path) -> None:
        """The program as prepared in ``job``, after the lines this server has read."""
        source = (job / texfork.PROGRAM).read_text(encoding="utf-8")
        cut = texfork.split(source)
        if cut is None or cut.shared != self.shared:
            raise ValueError("the program does not begin with this xelatex server's preamble")
        (job / texfork.REST).write_text(cut.rest, encoding="utf-8")

    def _refusals(self) -> int | None:
        return self._cap.refusals() if self._cap is not None else None

    def close(self) -> None:
        """End the interpreter and remove its workspace."""
        if self._proc is not None and self._proc.stdin is not None:
            try:
                if self.language is Language.MATLAB:
                    (self._root / QUEUE).write_text("QUIT\n")
                self._proc.stdin.close()
                self._proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self._kill()
        if self._watch is not None:
            self._watch.close()
        shutil.rmtree(self._root, ignore_errors=True)

    def __enter__(self) -> WarmInterpreter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
