"""Run one program for real and return its image, its output and a typed failure.

The program runs in a fresh private workspace holding only itself and the task's visible
inputs (data files, the figure), inside the sandbox (``refig.plugin.run_sandboxed``: no
network, a deadline with a process-group kill, a memory cap, a cap on its processes), with
package installations removed first (:mod:`.installs`). Its image is the newest PNG or JPEG it wrote
itself, else the figure its driver captured (Python, R, MATLAB), else page one of the PDF
(LaTeX). Failures are typed: ``syntax_error``, ``runtime_error``, ``timeout``, ``no_image``,
``too_large``, ``toolchain_missing``, ``process_limit`` (a fork bomb: the program failed after
the process cap refused it a process), each with the interpreter's message. The log's last line
says how the process cap held.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image
from refig.plugin import (
    DEFAULT_MAX_PROCESSES,
    ErrorInfo,
    ImageError,
    PdfError,
    first_page,
    open_image,
    png_bytes,
    run_sandboxed,
)

from refig_family_figure_to_code import toolchains
from refig_family_figure_to_code.installs import police
from refig_family_figure_to_code.languages import Language, spec

MAX_PROGRAM_BYTES = 1 << 20
MAX_IMAGE_BYTES = 32 << 20
MAX_IMAGE_PIXELS = 25_000_000
_IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg"}


@dataclass(frozen=True)
class Limits:
    """What one program may use: wall seconds, address space and tasks at once."""

    deadline_s: float = 60.0
    memory_mb: int = 4096
    max_processes: int = DEFAULT_MAX_PROCESSES


@dataclass(frozen=True)
class Execution:
    """The outcome of running one program.

    ``png`` is the image as normalised PNG bytes (None on failure); ``source`` says where it came
    from (``capture``, ``pdf`` or ``file:<name>``); ``copied_input`` names a visible input whose
    bytes the image file repeats exactly (noted in the log); ``removed`` the installations
    stripped.
    """

    language: Language
    png: bytes | None
    error: ErrorInfo | None
    log: bytes
    seconds: float
    toolchain: str = ""
    source: str = ""
    copied_input: str | None = None
    removed: tuple[str, ...] = field(default=())

    @property
    def ok(self) -> bool:
        """True when the program ran and made an image."""
        return self.error is None and self.png is not None


def _fail(language: Language, kind: str, message: str, log: bytes = b"", seconds: float = 0.0,
          toolchain: str = "", removed: tuple[str, ...] = ()) -> Execution:
    return Execution(language, None, ErrorInfo(kind=kind, message=message), log, seconds,
                     toolchain, removed=removed)


def _written_images(workdir: Path, before: set[Path]) -> list[Path]:
    """Images the program wrote itself, newest first (hidden folders and the capture excluded)."""
    found = [p for p in workdir.rglob("*") if p.suffix.lower() in _IMAGE_SUFFIXES
             and p.is_file() and p not in before and p.name != toolchains.CAPTURE
             and not any(part.startswith(".") for part in p.relative_to(workdir).parts)]
    return sorted(found, key=lambda p: (-p.stat().st_mtime_ns, p.name))


def _pick_image(language: Language, workdir: Path, before: set[Path]) -> tuple[Path, str] | None:
    written = _written_images(workdir, before)
    if written:
        return written[0], f"file:{written[0].relative_to(workdir)}"
    if (workdir / toolchains.CAPTURE).is_file():
        return workdir / toolchains.CAPTURE, "capture"
    pdf = workdir / "figure.pdf"
    if language is Language.LATEX and pdf.is_file():
        return pdf, "pdf"
    return None


class TooLarge(Exception):
    """An image over the byte or pixel limits."""


def _image_png(path: Path, width: int) -> bytes:
    """The image as PNG bytes; a PDF's first page at ``width`` pixels across."""
    size = path.stat().st_size
    if size > MAX_IMAGE_BYTES:
        raise TooLarge(f"the image file is {size:,} bytes, over {MAX_IMAGE_BYTES:,}")
    if path.suffix == ".pdf":
        try:
            image = first_page(path, lambda w, h: width / w, max_pixels=MAX_IMAGE_PIXELS)
        except PdfError as exc:
            # PDFium's page-size refusal is the only PdfError that says "over the limit".
            if "over the limit" in exc.message:
                raise TooLarge(exc.message) from exc
            raise
        return png_bytes(image)
    with Image.open(path) as head:  # the header only: no pixels decoded yet
        pixels = head.width * head.height
    if pixels > MAX_IMAGE_PIXELS:
        raise TooLarge(f"the image is {pixels:,} pixels, over {MAX_IMAGE_PIXELS:,}")
    return png_bytes(open_image(path, max_pixels=MAX_IMAGE_PIXELS))


@dataclass(frozen=True)
class Prepared:
    """A workspace holding one program (installations removed) and its inputs."""

    workdir: Path
    language: Language
    removed: tuple[str, ...]
    digests: dict[str, str]
    before: frozenset[Path]


def refuse(program: str | bytes, language: Language) -> Execution | None:
    """The failure of a program that must not run here (too large, no toolchain), else None."""
    raw = program.encode() if isinstance(program, str) else program
    if len(raw) > MAX_PROGRAM_BYTES:
        return _fail(language, "too_large",
                     f"the program is {len(raw):,} bytes, over {MAX_PROGRAM_BYTES:,}")
    if toolchains.binary(language) is None:
        packages = " ".join(spec(language).apt)
        return _fail(language, "toolchain_missing",
                     f"{spec(language).binary} is not installed: apt-get install "
                     f"--no-install-recommends {packages}")
    return None


def prepare(workdir: Path, program: str | bytes, language: Language,
            inputs: Mapping[str, Path]) -> Prepared:
    """Write the policed program and copy ``inputs`` (name -> file) into ``workdir``."""
    raw = program.encode() if isinstance(program, str) else program
    policed = police(raw.decode("utf-8", errors="replace"), language)
    digests: dict[str, str] = {}
    for name, path in inputs.items():
        target = workdir / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
        digests[hashlib.sha256(target.read_bytes()).hexdigest()] = name
    (workdir / toolchains.RUN_NAMES[language]).write_text(policed.source, encoding="utf-8")
    return Prepared(workdir, language, policed.removed, digests, frozenset(workdir.rglob("*")))


def conclude(prepared: Prepared, *, exit_code: int | None, timed_out: bool, output: bytes,
             seconds: float, toolchain: str, width: int, deadline_s: float,
             process_cap: str = "", process_limit_reached: bool | None = None) -> Execution:
    """The :class:`Execution` of a finished run: typed failure, or the image it made.

    ``process_cap`` says how the process cap held (``cgroup:256``); ``process_limit_reached``
    whether it refused the program a process (None: the mechanism cannot tell).
    """
    language = prepared.language
    notes = "".join(f"refig: removed package installation: {r}\n" for r in prepared.removed)
    log = notes.encode() + output
    if process_cap:
        reached = {True: ", reached", False: "", None: ""}[process_limit_reached]
        log += f"refig: process cap {process_cap}{reached}\n".encode()
    text = log.decode("utf-8", errors="replace")

    def fail(kind: str, message: str) -> Execution:
        return _fail(language, kind, message, log, seconds, toolchain, prepared.removed)

    kind = None if timed_out else toolchains.classify(language, exit_code, text)
    if process_limit_reached and (timed_out or kind is not None):
        limit = process_cap.rpartition(":")[2]
        return fail("process_limit", f"the program tried to hold more than {limit} processes "
                    f"at once ({process_cap}) and then failed")
    if timed_out:
        return fail("timeout", f"the program ran past its deadline of {deadline_s:g} s")
    if kind is not None:
        return fail(kind, toolchains.message(language, text)
                    or f"{toolchain} exited with status {exit_code}")
    picked = _pick_image(language, prepared.workdir, set(prepared.before))
    if picked is None:
        return fail("no_image", "the program ran but left no image: no figure was open "
                    "and it saved no PNG or JPEG")
    path, source = picked
    try:
        png = _image_png(path, width)
    except TooLarge as exc:
        return fail("too_large", f"{source}: {exc}")
    except (ImageError, PdfError, OSError) as exc:
        return fail("no_image", f"{source}: not a readable image: {exc}")
    copied = prepared.digests.get(hashlib.sha256(path.read_bytes()).hexdigest())
    if copied:
        log += f"refig: the image is a byte copy of the input {copied}\n".encode()
    return Execution(language, png, None, log, seconds, toolchain, source, copied,
                     prepared.removed)


def execute(
    program: str | bytes,
    language: Language | str,
    *,
    inputs: Mapping[str, Path] | None = None,
    width: int = 640,
    height: int = 480,
    limits: Limits | None = None,
) -> Execution:
    """Run ``program`` (source text) in ``language`` with ``inputs`` (name -> file) beside it,
    in a fresh process (see :mod:`.warm` for one reused interpreter)."""
    language = Language.parse(str(language))
    limits = limits or Limits()
    refused = refuse(program, language)
    if refused is not None:
        return refused
    with tempfile.TemporaryDirectory(prefix="refig-program-") as scratch:
        prepared = prepare(Path(scratch), program, language, inputs or {})
        launch = toolchains.launch(language, prepared.workdir, width, height)
        result = run_sandboxed(launch.argv, workdir=prepared.workdir,
                               deadline_s=limits.deadline_s, memory_mb=limits.memory_mb,
                               env=program_env(prepared.workdir, launch.env),
                               binds=launch.binds, max_processes=limits.max_processes)
        return conclude(prepared, exit_code=result.exit_code, timed_out=result.timed_out,
                        output=result.stdout + result.stderr, seconds=result.seconds,
                        toolchain=launch.toolchain, width=width, deadline_s=limits.deadline_s,
                        process_cap=result.process_cap,
                        process_limit_reached=result.process_limit_reached)


def program_env(workdir: Path, extra: Mapping[str, str]) -> dict[str, str]:
    """The whole environment of a program: caches in its workspace, one thread, no secrets."""
    cache = workdir / ".cache"
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(workdir), "TMPDIR": "/tmp",
            "LANG": "C.UTF-8", "XDG_CACHE_HOME": str(cache), "MPLCONFIGDIR": str(cache / "mpl"),
            "TEXMFVAR": str(cache / "texmf-var"), "OMP_NUM_THREADS": "1",
            "OPENBLAS_NUM_THREADS": "1", **extra}
