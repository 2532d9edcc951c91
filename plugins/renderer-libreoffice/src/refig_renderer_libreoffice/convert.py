"""Batched .pptx to PDF conversion with LibreOffice headless (the renderer's way when no warm
office can run: no ``uno`` module), and isolation of a file that hangs.

Starting LibreOffice costs about a second while converting one slide costs a few hundredths, so
one ``soffice --convert-to pdf a.pptx b.pptx ...`` converts a batch. LibreOffice converts files
in order and writes each PDF when it is done, so a batch is watched for progress: when no new PDF
appears within the per-file timeout (or LibreOffice dies), the whole process group is killed, the
first file without a PDF is retried alone (which decides its verdict) and the rest continue as a
new batch. Each batch runs with its own profile directory, which no other process uses at the
same time (a shared profile fails silently under concurrency). Every batch runs under a guard
(:mod:`refig_renderer_libreoffice.guard`) that kills it when its owner dies.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from refig.plugin import ErrorInfo
from refig_toolkit_pptx.gate import RENDER_TIMEOUT_KIND

from refig_renderer_libreoffice.confinement import Confinement, inert_copy
from refig_renderer_libreoffice.guard import spawn


def pdf_filter(hidden: bool) -> str:
    """The ``--convert-to`` filter; hidden slides are exported only when ``RenderJob.hidden``."""
    flag = "true" if hidden else "false"
    return f'pdf:impress_pdf_Export:{{"ExportHiddenSlides":{{"type":"boolean","value":"{flag}"}}}}'

_POLL = 0.05
_STDERR_TAIL = 600


@dataclass(frozen=True)
class BatchOutcome:
    """What one soffice run produced: PDFs by input index, and why it ended."""

    pdfs: dict[int, Path]
    #: Files LibreOffice never saw: no inert copy could be made (see :func:`inert_copy`).
    refused: dict[int, ErrorInfo]
    timed_out: bool
    returncode: int | None
    stderr: str
    seconds: float


@dataclass
class Profile:
    """A LibreOffice user profile directory used by one process at a time."""

    path: Path
    poisoned: bool = False

    def reset(self) -> None:
        """Throw the profile away (after a kill it may hold a stale lock or half a write)."""
        shutil.rmtree(self.path, ignore_errors=True)
        self.poisoned = False


def valid_pdf(path: Path) -> bool:
    """A complete PDF: the header and, near the end, the ``%%EOF`` marker."""
    try:
        size = path.stat().st_size
        if size < 64:
            return False
        with path.open("rb") as handle:
            head = handle.read(5)
            handle.seek(max(0, size - 1024))
            tail = handle.read()
        return head == b"%PDF-" and b"%%EOF" in tail
    except OSError:
        return False


def kill_group(process: subprocess.Popen[bytes], grace: float = 5.0) -> None:
    """SIGKILL the process group (soffice, oosplash and soffice.bin) and every descendant (in a
    sandbox they sit in a session of their own), reap the leader, and wait (briefly) until none
    is left, so the profile is free when the next batch starts."""
    family = _descendants(process.pid)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    for pid in family:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=10)
    deadline = time.monotonic() + grace
    while (_group_alive(process.pid) or any(map(_alive, family))) and \
            time.monotonic() < deadline:
        time.sleep(_POLL)


def _stat(pid: str) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the command name, or None when it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _alive(pid: int) -> bool:
    fields = _stat(str(pid))
    return fields is not None and fields[0] not in {"Z", "X"}


def _descendants(root: int) -> list[int]:
    """The live descendants of ``root``, by parent pid (empty where there is no ``/proc``)."""
    proc = Path("/proc")
    if not proc.is_dir():
        return []
    children: dict[int, list[int]] = {}
    for entry in proc.iterdir():
        if entry.name.isdigit() and (fields := _stat(entry.name)) is not None:
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, stack = [], [root]
    while stack:
        for child in children.get(stack.pop(), ()):
            found.append(child)
            stack.append(child)
    return found


def _group_alive(pgid: int) -> bool:
    """True while a process of group ``pgid`` still runs (zombies waiting for init do not)."""
    proc = Path("/proc")
    if not proc.is_dir():
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return True
    for entry in proc.iterdir():
        fields = _stat(entry.name) if entry.name.isdigit() else None
        if fields is not None and len(fields) > 2 and fields[2] == str(pgid) \
                and fields[0] not in {"Z", "X"}:
            return True
    return False


@dataclass
class Converter:
    """Runs soffice batches in ``workdir`` with the given binary and limits."""

    soffice: str
    workdir: Path
    timeout: float
    confinement: Confinement
    memory_bytes: int | None = None

    def run_batch(
        self, items: Sequence[tuple[int, Path]], profile: Profile, *, hidden: bool = False
    ) -> BatchOutcome:
        """Convert ``items`` (index, .pptx) in one soffice process; never raises, never hangs."""
        started = time.monotonic()
        batch = Path(tempfile.mkdtemp(prefix="batch-", dir=self.workdir))
        try:
            inputs, outdir = batch / "in", batch / "out"
            inputs.mkdir()
            outdir.mkdir()
            names: list[str] = []
            refused: dict[int, ErrorInfo] = {}
            for index, source in items:
                copy = inert_copy(source, inputs)  # all LibreOffice ever sees of the file
                if isinstance(copy, ErrorInfo):
                    refused[index] = copy
                    continue
                named = copy.rename(inputs / f"{index}.pptx")  # outputs are named after inputs
                names.append(str(named))
            if not names:
                return BatchOutcome(pdfs={}, refused=refused, timed_out=False, returncode=0,
                                    stderr="", seconds=time.monotonic() - started)
            command = [
                self.soffice,
                f"-env:UserInstallation={profile.path.resolve().as_uri()}",
                "--headless",
                "--invisible",
                "--nologo",
                "--norestore",
                "--nodefault",
                "--nolockcheck",
                "--convert-to",
                pdf_filter(hidden),
                "--outdir",
                str(outdir),
                *names,
            ]
            if self.memory_bytes and (prlimit := shutil.which("prlimit")):
                command = [prlimit, f"--as={self.memory_bytes}", "--", *command]
            command = self.confinement.command(command, folder=batch, writable=[profile.path])
            stderr_path = batch / "stderr.txt"
            with stderr_path.open("wb") as stderr:
                guarded = spawn(command, env=self.confinement.env(batch), stderr=stderr)
                process = guarded.process
                try:
                    timed_out = self._watch(process, outdir)
                finally:
                    # Also after a normal exit (helpers left behind) or an interrupt: its own
                    # session means Ctrl-C never reaches it, so nothing else would stop it.
                    kill_group(process)
                    guarded.release()
            if timed_out or process.returncode not in (0, None):
                profile.poisoned = True
            pdfs: dict[int, Path] = {}
            for index, _ in items:
                pdf = outdir / f"{index}.pdf"
                if valid_pdf(pdf):
                    kept = self.workdir / f"{batch.name}-{index}.pdf"
                    pdf.replace(kept)
                    pdfs[index] = kept
            with stderr_path.open("rb") as handle:  # only the tail: it may have grown large
                handle.seek(max(0, stderr_path.stat().st_size - _STDERR_TAIL))
                stderr_text = handle.read().decode("utf-8", "replace")
            return BatchOutcome(
                pdfs=pdfs,
                refused=refused,
                timed_out=timed_out,
                returncode=process.returncode,
                stderr=stderr_text.strip(),
                seconds=time.monotonic() - started,
            )
        finally:
            shutil.rmtree(batch, ignore_errors=True)

    def _watch(self, process: subprocess.Popen[bytes], outdir: Path) -> bool:
        """Wait for the process; True when no new PDF appeared within ``timeout`` seconds."""
        deadline = time.monotonic() + self.timeout
        seen = 0
        while process.poll() is None:
            produced = sum(1 for name in os.listdir(outdir) if name.endswith(".pdf"))
            if produced > seen:
                seen = produced
                deadline = time.monotonic() + self.timeout
            if time.monotonic() > deadline:
                return True
            time.sleep(_POLL)
        return False

    def convert(
        self, items: Sequence[tuple[int, Path]], profile: Profile, *, hidden: bool = False
    ) -> dict[int, Path | ErrorInfo]:
        """PDFs (or typed failures) for every item, isolating the files that hang or crash."""
        results: dict[int, Path | ErrorInfo] = {}
        pending = list(items)
        while pending:
            outcome = self._run(pending, profile, hidden)
            results.update(outcome.pdfs)
            results.update(outcome.refused)
            missing = [item for item in pending if item[0] not in results]
            if not missing:
                break
            if len(pending) == 1 or (outcome.returncode == 0 and not outcome.timed_out):
                # LibreOffice went through every file and exited normally: those without a PDF
                # failed on their own ("source file could not be loaded"), not by a neighbour.
                for index, _ in missing:
                    results[index] = _failure(outcome, self.timeout)
                break
            # The first file without a PDF is the suspect: it alone decides its own verdict.
            suspect = missing[0]
            alone = self._run([suspect], profile, hidden)
            results[suspect[0]] = (alone.pdfs.get(suspect[0]) or alone.refused.get(suspect[0])
                                   or _failure(alone, self.timeout))
            pending = missing[1:]
        return results

    def _run(
        self, items: Sequence[tuple[int, Path]], profile: Profile, hidden: bool
    ) -> BatchOutcome:
        """One batch, on a fresh profile when the last run with this one was killed or crashed."""
        if profile.poisoned:
            profile.reset()
        return self.run_batch(items, profile, hidden=hidden)


def _failure(outcome: BatchOutcome, timeout: float) -> ErrorInfo:
    """The typed verdict of a file that produced no PDF in ``outcome``."""
    if outcome.timed_out:
        return ErrorInfo(
            kind=RENDER_TIMEOUT_KIND,
            message=f"LibreOffice produced no PDF within {timeout:g} s; its processes were killed",
        )
    detail = outcome.stderr.splitlines()[-1] if outcome.stderr else "no output"
    return ErrorInfo(
        kind="render_failed",
        message=f"LibreOffice exited with code {outcome.returncode} and no PDF: {detail}",
    )
