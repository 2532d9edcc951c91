"""Run one program for real and return its image, its output and a typed failure.

The program runs in a fresh private workspace holding only itself and the task's visible
inputs (data files, the figure), inside the sandbox (``refig.plugin.run_sandboxed``: no
network, a deadline with a process-group kill, a memory cap, a cap on its processes), with
package installations removed first (:mod:`.installs`). Its image is decided by the task's
capture protocol (:mod:`.capture`): under ``refig`` the newest PNG or JPEG it wrote itself,
else the figure its driver captured (Python, R, MATLAB), else page one of the PDF (LaTeX); under
``figcodebench`` only the capture the release's conventions make. The image is read like a
deliverable (``refig.plugin.read_confined``): never through a link, only inside the workspace;
a link or special file where the image should be fails ``output_refused``. Failures are typed:
``syntax_error``, ``runtime_error``, ``timeout``, ``no_image``, ``too_large``,
``toolchain_missing``, ``output_refused``, ``process_limit`` (a fork bomb: the program failed
after the process cap refused it a process), each with the interpreter's message. The log's
last line says how the process cap held. An image that copies a visible input is named in
``copied_input`` (:mod:`.copies`); the input images are placed under an inotify watch
(:mod:`.input_watch`), and a run proven never to have opened one is not run again for that.
"""

from __future__ import annotations

import hashlib
import io
import shutil
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from PIL import Image
from refig.plugin import (
    ErrorInfo,
    FileRefused,
    Refused,
    SandboxPolicy,
    confined_files,
    read_confined,
    run_sandboxed,
)
from refig_toolkit_agent.processes import DEFAULT_MAX_PROCESSES
from refig_toolkit_imaging import (
    ImageError,
    PdfError,
    bgr_png_bytes,
    open_image,
    render_pages_bgr,
    rgb_png_bytes,
)

from refig_family_figure_to_code import toolchains
from refig_family_figure_to_code.capture import (
    FIGCODEBENCH,
    FIGCODEBENCH_DPI,
    REFIG,
    crop_margin,
    figcodebench_python,
)
from refig_family_figure_to_code.copies import copied_input, may_be_copied, suspects
from refig_family_figure_to_code.input_watch import InputWatch
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
    from (``capture``, ``pdf`` or ``file:<name>``); ``copied_input`` names the visible input the
    image copies, as a second run with decoy inputs showed (:mod:`.copies`; noted in the log);
    ``removed`` the installations stripped; ``inputs_unopened`` is True when an inotify watch
    proved that the run never opened a visible input image (:mod:`.input_watch`), so its image
    copies none and needs no second run.
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
    #: The sha256 of the image file as the program left it (before normalisation).
    raw_sha256: str = ""
    inputs_unopened: bool = False

    @property
    def ok(self) -> bool:
        """True when the program ran and made an image."""
        return self.error is None and self.png is not None


def _fail(language: Language, kind: str, message: str, log: bytes = b"", seconds: float = 0.0,
          toolchain: str = "", removed: tuple[str, ...] = ()) -> Execution:
    return Execution(language, None, ErrorInfo(kind=kind, message=message), log, seconds,
                     toolchain, removed=removed)


class Refusal(Exception):
    """Where the image should be, a link or special file: never read."""


def _refusal(refused: list[Refused], name: str) -> Refusal:
    items = "; ".join(f"{r.path.name}: {r.reason}" for r in refused)
    return Refusal(f"{name} cannot be read as the program's image ({items}): refig reads "
                   "only regular files inside the program's workspace, never through a link")


def _pick_image(prepared: Prepared, protocol: str) -> tuple[Path, str] | None:
    """The image file the protocol takes, or None when there is none; :class:`Refusal` when
    the candidate is a link or special file."""
    workdir, language = prepared.workdir, prepared.language
    files, refused = confined_files(workdir)
    refused = [r for r in refused if r.path.suffix.lower() in _IMAGE_SUFFIXES | {".pdf"}
               and not any(part.startswith(".") for part in r.path.relative_to(workdir).parts)]
    pdf = workdir / "figure.pdf"
    if language is Language.LATEX and (protocol == FIGCODEBENCH or (workdir / "figure.pdf")
                                       in files):
        return (pdf, "pdf") if pdf in files else None
    capture = workdir / toolchains.CAPTURE
    if protocol == REFIG:
        written = [p for p in files if p.suffix.lower() in _IMAGE_SUFFIXES
                   and p not in prepared.before and p != capture
                   and not any(part.startswith(".") for part in p.relative_to(workdir).parts)]
        if written:
            newest = min(written, key=lambda p: (-p.lstat().st_mtime_ns, p.name))
            return newest, f"file:{newest.relative_to(workdir)}"
        if refused:
            raise _refusal(refused, "the image it saved")
    if capture in files:
        return capture, "capture"
    if any(r.path == capture for r in refused):
        raise _refusal([r for r in refused if r.path == capture], toolchains.CAPTURE)
    return None


class TooLarge(Exception):
    """An image over the byte or pixel limits."""


def _image_png(data: bytes, pdf: bool, width: int, protocol: str, toolchain: str) -> bytes:
    """The image as PNG bytes; a PDF's first page at ``width`` pixels across (at the release's
    300 dpi under the figcodebench protocol); Octave's print cropped to its content under it."""
    if pdf:
        scale = ((lambda w, h: FIGCODEBENCH_DPI / 72) if protocol == FIGCODEBENCH
                 else (lambda w, h: width / w))
        try:
            page = render_pages_bgr(data, scale, max_pixels=MAX_IMAGE_PIXELS, limit=1)[0]
        except PdfError as exc:
            # PDFium's page-size refusal is the only PdfError that says "over the limit".
            if "over the limit" in exc.message:
                raise TooLarge(exc.message) from exc
            raise
        return bgr_png_bytes(page)
    with Image.open(io.BytesIO(data)) as head:  # the header only: no pixels decoded yet
        pixels = head.width * head.height
    if pixels > MAX_IMAGE_PIXELS:
        raise TooLarge(f"the image is {pixels:,} pixels, over {MAX_IMAGE_PIXELS:,}")
    image = open_image(data, max_pixels=MAX_IMAGE_PIXELS)
    if protocol == FIGCODEBENCH and toolchains.octave_made(toolchain):
        image = crop_margin(image)
    return rgb_png_bytes(image)


@dataclass(frozen=True)
class Prepared:
    """A workspace holding one program (installations removed) and its inputs."""

    workdir: Path
    language: Language
    removed: tuple[str, ...]
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
            inputs: Mapping[str, Path], protocol: str = REFIG,
            watch: InputWatch | None = None) -> Prepared:
    """Write the policed program (as the capture protocol runs it) and copy ``inputs``
    (name -> file) into ``workdir``; ``watch`` places the images among them (the inputs an
    image can copy: a program reads its data files, which proves nothing)."""
    raw = program.encode() if isinstance(program, str) else program
    policed = police(raw.decode("utf-8", errors="replace"), language)
    for name, path in inputs.items():
        target = workdir / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if watch is not None and may_be_copied(name):
            watch.place(path, target)
        else:
            shutil.copyfile(path, target)
    source = policed.source
    if protocol == FIGCODEBENCH and language is Language.PYTHON:
        source = figcodebench_python(source, toolchains.CAPTURE)
    (workdir / toolchains.RUN_NAMES[language]).write_text(source, encoding="utf-8")
    return Prepared(workdir, language, policed.removed, frozenset(workdir.rglob("*")))


def conclude(prepared: Prepared, *, exit_code: int | None, timed_out: bool, output: bytes,
             seconds: float, toolchain: str, width: int, deadline_s: float,
             process_cap: str = "", process_limit_reached: bool | None = None,
             protocol: str = REFIG) -> Execution:
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
    try:
        picked = _pick_image(prepared, protocol)
    except Refusal as exc:
        return fail("output_refused", str(exc))
    if picked is None:
        return fail("no_image", "the program ran but left no image: no figure was open "
                    "and it saved no PNG or JPEG")
    path, source = picked
    try:
        raw = read_confined(path, prepared.workdir, max_bytes=MAX_IMAGE_BYTES)
        png = _image_png(raw, path.suffix == ".pdf", width, protocol, toolchain)
    except FileRefused as exc:
        if "over the limit" in str(exc):
            return fail("too_large", f"{source}: {exc}")
        return fail("output_refused", f"{source}: {exc}")
    except TooLarge as exc:
        return fail("too_large", f"{source}: {exc}")
    except (ImageError, PdfError, OSError) as exc:
        return fail("no_image", f"{source}: not a readable image: {exc}")
    return Execution(language, png, None, log, seconds, toolchain, source, None,
                     prepared.removed, raw_sha256=hashlib.sha256(raw).hexdigest())


def with_copy_check(execution: Execution, inputs: Mapping[str, Path],
                    rerun: Callable[[Mapping[str, Path]], Execution]) -> Execution:
    """``execution`` with ``copied_input`` set when its image copies a visible input (decided
    by ``rerun`` with decoys, :mod:`.copies`) and the finding noted in its log. A run proven
    never to open one is not compared with them at all: decoding both images was most of a
    reference's cost after its run (docs/performance.md)."""
    if not execution.ok or execution.png is None:
        return execution
    if execution.inputs_unopened:
        if not any(may_be_copied(name) for name in inputs):
            return execution
        note = (b"refig: the program never opened a visible input image (inotify), so its "
                b"image copies none: not compared with them, not run again with a decoy\n")
        return replace(execution, log=execution.log + note)
    names = suspects(execution.png, execution.raw_sha256, inputs)
    copied = copied_input(execution.png, names, inputs, lambda swapped: rerun(swapped).png)
    if copied is None:
        return execution
    note = (f"refig: the image copies the input {copied}: run again with that input "
            "replaced by a decoy, the program no longer made the same picture\n").encode()
    return replace(execution, copied_input=copied, log=execution.log + note)


def execute(
    program: str | bytes,
    language: Language | str,
    *,
    inputs: Mapping[str, Path] | None = None,
    width: int = 640,
    height: int = 480,
    limits: Limits | None = None,
    protocol: str = REFIG,
    shared_caches: bool = True,
) -> Execution:
    """Run ``program`` (source text) in ``language`` with ``inputs`` (name -> file) beside it,
    in a fresh process, captured by ``protocol`` (see :mod:`.warm` for one reused
    interpreter); ``shared_caches`` False hides this machine's font cache and uncompressed TeX
    format from it (:mod:`.machine_caches`; the same image, more work)."""
    language = Language.parse(str(language))
    limits = limits or Limits()
    refused = refuse(program, language)
    if refused is not None:
        return refused

    def once(given: Mapping[str, Path]) -> Execution:
        return run_fresh(program, language, given, width=width, height=height, limits=limits,
                         protocol=protocol, shared_caches=shared_caches)

    given = inputs or {}
    return with_copy_check(once(given), given, once)


def run_fresh(program: str | bytes, language: Language, inputs: Mapping[str, Path], *,
              width: int, height: int, limits: Limits, protocol: str,
              shared_caches: bool = True) -> Execution:
    """One run of ``program`` in a fresh sandbox and workspace, without the copy check; its
    ``inputs_unopened`` says whether a watch proved it never opened an input."""
    policy = SandboxPolicy.create("auto", network=False)
    with tempfile.TemporaryDirectory(prefix="refig-program-") as scratch:
        workdir = Path(scratch)
        # Nothing of a sandbox outlives it, so a watch over this run alone is the proof;
        # without bubblewrap the program can reach anything: no proof.
        watch = (InputWatch.start(workdir.parent) if inputs and policy.mode == "bwrap"
                 else None)
        try:
            prepared = prepare(workdir, program, language, inputs, protocol, watch)
            launch = toolchains.launch(language, workdir, width, height, protocol,
                                       shared_caches)
            result = run_sandboxed(launch.argv, workdir=workdir, policy=policy,
                                   deadline_s=limits.deadline_s, memory_mb=limits.memory_mb,
                                   env=program_env(workdir, launch.env), binds=launch.binds,
                                   max_processes=limits.max_processes)
            execution = conclude(prepared, exit_code=result.exit_code,
                                 timed_out=result.timed_out,
                                 output=result.stdout + result.stderr, seconds=result.seconds,
                                 toolchain=launch.toolchain, width=width,
                                 deadline_s=limits.deadline_s, process_cap=result.process_cap,
                                 process_limit_reached=result.process_limit_reached,
                                 protocol=protocol)
            return replace(execution, inputs_unopened=watch is not None and watch.untouched())
        finally:
            if watch is not None:
                watch.close()


def program_env(workdir: Path, extra: Mapping[str, str]) -> dict[str, str]:
    """The whole environment of a program: caches in its workspace, one thread, no secrets."""
    cache = workdir / ".cache"
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(workdir), "TMPDIR": "/tmp",
            "LANG": "C.UTF-8", "XDG_CACHE_HOME": str(cache), "MPLCONFIGDIR": str(cache / "mpl"),
            "TEXMFVAR": str(cache / "texmf-var"), "OMP_NUM_THREADS": "1",
            "OPENBLAS_NUM_THREADS": "1", **extra}
