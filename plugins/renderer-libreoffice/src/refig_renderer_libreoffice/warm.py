"""One LibreOffice per profile kept running for the renderer's whole life, fed file after file.

A batch ``soffice --convert-to`` pays LibreOffice's start-up (about a CPU second) per batch; here
each profile holds a warm office driven over UNO by :mod:`refig_renderer_libreoffice.unobridge`
(under the guard, so it dies with its owner), started once and reused by every later call. One
request is kept queued ahead of the one being converted, so the office works on the next file
while the caller rasterises the last. A file gets ``timeout`` seconds from when the office is free
for it (a fresh office's start-up counts against its first file); on a timeout the whole process
group is killed and the file's verdict is ``timeout``; when the office dies on a file, that file
is retried once on a fresh office, which decides its verdict, and the files queued behind it go on.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import subprocess
import time
import uuid
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import IO, Any

from refig.plugin import ErrorInfo
from refig_toolkit_pptx.gate import RENDER_TIMEOUT_KIND

from refig_renderer_libreoffice.confinement import Confinement, inert_copy
from refig_renderer_libreoffice.convert import Profile, kill_group, valid_pdf
from refig_renderer_libreoffice.guard import Guarded, spawn

#: Interpreters that may have LibreOffice's ``uno`` module (``python3-uno`` on Debian/Ubuntu).
UNO_PYTHONS = ("/usr/bin/python3", "/usr/local/bin/python3")
_STDERR_TAIL = 600
_AHEAD = 2  # requests in flight: the one converting and the next
_CLOSE_WAIT = 10.0
#: Run by the ``uno`` interpreter as a script, never imported here (refig's Python has no uno).
BRIDGE = Path(__file__).with_name("unobridge.py")


@cache
def uno_python() -> str | None:
    """An interpreter that can ``import uno`` (``REFIG_UNO_PYTHON`` first), or None."""
    explicit = os.environ.get("REFIG_UNO_PYTHON")
    for candidate in ((explicit,) if explicit else UNO_PYTHONS):
        if not os.access(candidate, os.X_OK):
            continue
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            done = subprocess.run([candidate, "-c", "import uno"], capture_output=True,
                                  timeout=60, check=False)
            if done.returncode == 0:
                return candidate
    return None


@dataclass
class Office:
    """A running bridge and its office: one process group, JSON lines in and out."""

    guarded: Guarded
    stdin: IO[bytes]
    stdout: int
    stderr_path: Path
    #: Its scratch folder: the inert copies it converts and their PDFs, its temporary files.
    folder: Path
    buffer: bytes = b""

    def send(self, source: Path, pdf: Path, hidden: bool) -> bool:
        """Queue one conversion; False when the bridge is gone."""
        # the office runs in another directory and takes only absolute file URLs
        line = json.dumps({"source": str(source.absolute()), "pdf": str(pdf.absolute()),
                           "hidden": hidden})
        try:
            self.stdin.write(line.encode() + b"\n")
            self.stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            return False
        return True

    def receive(self, deadline: float) -> dict[str, Any] | None:
        """The next answer (start-up notices skipped), or None once ``deadline`` passes."""
        while True:
            while b"\n" not in self.buffer:
                wait = deadline - time.monotonic()
                if wait <= 0 or not select.select([self.stdout], [], [], wait)[0]:
                    return None
                chunk = os.read(self.stdout, 65536)
                if not chunk:
                    return {"error": f"LibreOffice exited{self._stderr()}", "dead": True}
                self.buffer += chunk
            line, self.buffer = self.buffer.split(b"\n", 1)
            with contextlib.suppress(ValueError):
                answer = json.loads(line)
                if isinstance(answer, dict) and not answer.get("ready"):
                    return answer

    def _stderr(self) -> str:
        with contextlib.suppress(OSError), self.stderr_path.open("rb") as handle:
            handle.seek(max(0, self.stderr_path.stat().st_size - _STDERR_TAIL))
            tail = handle.read().decode("utf-8", "replace").strip()
            return f": {tail.splitlines()[-1]}" if tail else ""
        return ""

    def end_input(self) -> None:
        """Close the bridge's input: it shuts its office down and exits."""
        with contextlib.suppress(OSError, ValueError):
            self.stdin.close()

    def stop(self, *, wait: float = 0.0) -> None:
        """End the office: close its input and give it ``wait`` seconds to shut down (so its
        CPU time is accounted to the owner), then kill whatever is left of its process group."""
        self.end_input()
        if wait > 0:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.guarded.process.wait(timeout=wait)
        kill_group(self.guarded.process, grace=2.0)
        self.guarded.release()
        with contextlib.suppress(OSError):
            os.close(self.stdout)
        shutil.rmtree(self.folder, ignore_errors=True)


@dataclass
class WarmConverter:
    """Converts .pptx files to PDF in one warm office per profile, kept until :meth:`close`."""

    python: str
    soffice: str
    workdir: Path
    timeout: float
    confinement: Confinement
    memory_bytes: int | None = None
    _offices: dict[Path, Office] = field(default_factory=dict)

    def convert(
        self, items: Sequence[tuple[int, Path]], profile: Profile, *, hidden: bool
    ) -> Iterator[tuple[int, Path | ErrorInfo]]:
        """Each item's PDF (or typed failure) as soon as it is ready, in order; never hangs."""
        pending = deque(items)
        inflight: deque[tuple[int, Path, Path]] = deque()
        retried: set[int] = set()
        free_since = time.monotonic()
        while pending or inflight:
            office = self._offices.get(profile.path)
            if office is None:
                office, free_since = self._start(profile), time.monotonic()
            while pending and len(inflight) < _AHEAD:
                index, source = pending.popleft()
                copy = inert_copy(source, office.folder)  # all the office ever sees of it
                if isinstance(copy, ErrorInfo):
                    yield index, copy
                    continue
                inflight.append((index, source, copy))
                if not office.send(copy, copy.with_suffix(".pdf"), hidden):
                    break
            if not inflight:
                continue
            index, source, copy = inflight[0]
            pdf = copy.with_suffix(".pdf")
            answer = office.receive(free_since + self.timeout)
            if answer is not None and not answer.get("dead"):
                inflight.popleft()
                copy.unlink(missing_ok=True)
                free_since = time.monotonic()
                if answer.get("ok") and valid_pdf(pdf):
                    yield index, pdf
                else:
                    pdf.unlink(missing_ok=True)
                    yield index, _refused(answer)
                continue
            self._discard(profile)  # timed out or died: nothing it was doing can be trusted
            inflight.popleft()
            if answer is None:
                yield index, ErrorInfo(
                    kind=RENDER_TIMEOUT_KIND,
                    message=f"LibreOffice produced no PDF within {self.timeout:g} s; "
                            "its processes were killed")
            elif index in retried:
                yield index, ErrorInfo(kind="render_failed",
                                       message=f"{answer.get('error')} (twice) and no PDF")
            else:
                retried.add(index)
                pending.appendleft((index, source))
            while inflight:
                queued_index, queued_source, _ = inflight.pop()
                pending.appendleft((queued_index, queued_source))

    def start(self, profile: Profile) -> None:
        """Start ``profile``'s office now unless it runs already; do not wait for it."""
        if profile.path not in self._offices:
            self._start(profile)

    def _start(self, profile: Profile) -> Office:
        """A fresh office on ``profile`` (reset first when the last one was killed)."""
        if profile.poisoned:
            profile.reset()
        scratch = self.workdir / f"office-{uuid.uuid4().hex[:8]}"
        scratch.mkdir()
        bridge = scratch / BRIDGE.name  # a copy: the sandbox shows nothing of refig's files
        shutil.copyfile(BRIDGE, bridge)
        pipe = f"refig-{os.getpid()}-{scratch.name}"
        command = [self.soffice, f"-env:UserInstallation={profile.path.resolve().as_uri()}",
                   "--headless", "--invisible", "--nologo", "--norestore", "--nodefault",
                   "--nolockcheck", f"--accept=pipe,name={pipe};urp;"]
        if self.memory_bytes and (prlimit := shutil.which("prlimit")):
            command = [prlimit, f"--as={self.memory_bytes}", "--", *command]
        stdin_read, stdin_write = os.pipe()
        stdout_read, stdout_write = os.pipe()
        stderr_path = scratch / "stderr.txt"
        # The bridge and its office share one sandbox: the UNO pipe stays inside it.
        confined = self.confinement.command([self.python, "-I", str(bridge), pipe, "--",
                                             *command], folder=scratch, writable=[profile.path])
        try:
            with stderr_path.open("wb") as stderr:
                guarded = spawn(confined, env=self.confinement.env(scratch), stderr=stderr,
                                stdin=stdin_read, stdout=stdout_write)
        finally:
            os.close(stdin_read)
            os.close(stdout_write)
        office = Office(guarded, os.fdopen(stdin_write, "wb"), stdout_read, stderr_path,
                        scratch)
        self._offices[profile.path] = office
        return office

    def _discard(self, profile: Profile) -> None:
        """Kill the profile's office; its profile is reset before the next start."""
        office = self._offices.pop(profile.path, None)
        if office is not None:
            office.stop()
        profile.poisoned = True

    def close(self) -> None:
        """Stop every office, letting them shut down cleanly, side by side, for a few seconds."""
        offices = [self._offices.pop(path) for path in list(self._offices)]
        for office in offices:
            office.end_input()
        deadline = time.monotonic() + _CLOSE_WAIT
        for office in offices:
            office.stop(wait=max(0.0, deadline - time.monotonic()))


def _refused(answer: dict[str, Any]) -> ErrorInfo:
    """The verdict of a deck the office would not convert (it stayed up)."""
    return ErrorInfo(kind="render_failed",
                     message=f"LibreOffice produced no PDF: {answer.get('error') or 'no output'}")
