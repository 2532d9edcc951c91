"""The ``libreoffice`` renderer: .pptx to PDF in warm, batched LibreOffice processes, then PNG."""

from __future__ import annotations

import hashlib
import math
import os
import shutil
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from importlib.metadata import version as distribution_version
from pathlib import Path

from refig.plugin import (
    Check,
    ErrorInfo,
    RefigError,
    Renderer,
    RenderJob,
    RenderOutput,
    Status,
    UsageError,
    apt_fix,
)
from refig_toolkit_imaging import probe
from refig_toolkit_imaging.fonts import font_files_digest, fontconfig_fonts
from refig_toolkit_pptx import Package

from refig_renderer_libreoffice.confinement import SYSTEM_PATH, Confinement, office_policy
from refig_renderer_libreoffice.convert import Profile
from refig_renderer_libreoffice.offices import Conversion, OfficePool, join, leave
from refig_renderer_libreoffice.raster import RasterError, pdf_to_pngs
from refig_renderer_libreoffice.scratch import reap_abandoned
from refig_renderer_libreoffice.warm import uno_python

#: (input index, .pptx) pairs, converted together in one profile.
Chunk = list[tuple[int, Path]]

INSTALL_FIX = (
    "install LibreOffice Impress and the metric-compatible fonts: apt-get install "
    "libreoffice-impress python3-uno fonts-crosextra-carlito fonts-crosextra-caladea "
    "fonts-noto-cjk "
    "(or point REFIG_SOFFICE at a soffice binary)"
)


def find_soffice(explicit: str | None = None) -> str:
    """The soffice binary: the option, ``REFIG_SOFFICE``, or ``soffice``/``libreoffice`` on PATH."""
    for candidate in (explicit, os.environ.get("REFIG_SOFFICE"), "soffice", "libreoffice"):
        if candidate and (found := shutil.which(candidate)):
            return found
    raise RefigError("LibreOffice (soffice) is not installed or not on PATH", fix=INSTALL_FIX)


@cache
def libreoffice_version(soffice: str) -> str:
    """``LibreOffice 7.4.7.2 40(Build:2)``, as ``soffice --version`` prints it (a RefigError
    when it cannot be read)."""
    return probe([soffice, "--version"], env={"PATH": SYSTEM_PATH},
                 fix=INSTALL_FIX).partition("\n")[0] or "LibreOffice"


def installed_fonts() -> tuple[str, ...]:
    """The font families fontconfig offers LibreOffice, sorted (they change how slides render)."""
    return fontconfig_fonts().families


#: The metric-compatible fonts a slide written on Windows or macOS needs to render at its size.
REQUIRED_FONTS = {"Carlito": "fonts-crosextra-carlito", "Caladea": "fonts-crosextra-caladea",
                  "Noto Sans CJK": "fonts-noto-cjk"}


def machine_checks() -> Iterator[Check]:
    """What ``refig doctor`` reports for rendering: LibreOffice and the fonts, both required."""
    try:
        soffice = find_soffice()
        yield Check("LibreOffice", Status.OK, f"{libreoffice_version(soffice)} ({soffice})")
    except RefigError as exc:
        yield Check("LibreOffice", Status.MISSING, exc.message, apt_fix("libreoffice-impress"),
                    required=True)
    fonts = " ".join(installed_fonts()).lower()
    missing = {name: package for name, package in REQUIRED_FONTS.items()
               if name.lower() not in fonts}
    if missing:
        yield Check("fonts", Status.MISSING, f"missing {', '.join(missing)}",
                    apt_fix(*missing.values()), required=True)
    else:
        yield Check("fonts", Status.OK, ", ".join(REQUIRED_FONTS))
    try:
        mode = office_policy().mode
        yield Check("LibreOffice sandbox", Status.OK if mode == "bwrap" else Status.WARN,
                    "bubblewrap, no network" if mode == "bwrap"
                    else "none (REFIG_RENDER_SANDBOX=none): LibreOffice sees the host")
    except UsageError as exc:
        yield Check("LibreOffice sandbox", Status.MISSING, exc.message, exc.fix, required=True)
    if python := uno_python():
        yield Check("warm LibreOffice", Status.OK, f"UNO through {python}")
    else:
        yield Check("warm LibreOffice", Status.MISSING,
                    "no Python with LibreOffice's uno module: one cold start per batch",
                    apt_fix("python3-uno"))


def slide_aspect(path: Path) -> float | None:
    """Height / width of the deck's slide size, or None when the deck cannot say."""
    try:
        with Package.open(path) as package:
            width, height = package.slide_size()
            return height / width
    except Exception:
        return None


class LibreOfficeRenderer(Renderer):
    """Renders .pptx files to PNG in profiles and warm offices shared with the process's other
    renderers that convert alike (:mod:`~refig_renderer_libreoffice.offices`), until the last of
    them closes.

    With LibreOffice's ``uno`` module (``python3-uno``) each profile keeps one office running
    (:mod:`~refig_renderer_libreoffice.warm`); without it each call's chunk is one batch
    ``soffice --convert-to`` (:mod:`~refig_renderer_libreoffice.convert`).

    ``width`` is the PNG width in pixels (the height follows the slide's aspect ratio);
    ``timeout`` the seconds a single file may take; ``workers`` how many soffice processes one
    :meth:`render` call runs at once; ``batch_size`` how many files one process converts.

    ``workers`` defaults to 1 because refig's stages already call :meth:`render` from ``-j``
    executor workers at once: more per call would run ``-j`` times as many LibreOffice
    processes as asked for. A program that makes one call for many files raises it.
    """

    def __init__(
        self,
        *,
        width: int = 1600,
        timeout: float = 60.0,
        workers: int = 1,
        batch_size: int = 32,
        soffice: str | None = None,
        memory_mb: int | None = 4096,
        sandbox: str | None = None,
    ):
        if not 16 <= int(width) <= 8192:
            raise UsageError(f"renderer width {width} is outside 16..8192 pixels")
        self.width = int(width)
        # links=inert: renderings made before links were stripped are not reused for these
        self.settings = f"pdf-png;width={self.width};links=inert"
        self.soffice = find_soffice(soffice)
        confinement = Confinement(office_policy(sandbox))
        #: How each office is confined: ``bwrap``, or ``none`` when the option opted out.
        self.sandbox = confinement.mode
        with ThreadPoolExecutor(3) as probes:  # three subprocesses: they wait side by side
            version = probes.submit(libreoffice_version, self.soffice)
            fonts = probes.submit(installed_fonts)
            found_python = probes.submit(uno_python)
            self.version, self.fonts, python = (version.result(), fonts.result(),
                                                found_python.result())
        self.workers = max(1, int(workers))
        self.batch_size = max(1, int(batch_size))
        reap_abandoned()  # what a killed renderer left: its converters and profiles
        # renderers that convert alike share their offices (a later stage's finds them warm)
        self._pool: OfficePool | None = join(Conversion(
            soffice=self.soffice, timeout=float(timeout), confinement=confinement,
            memory_bytes=int(memory_mb) << 20 if memory_mb else None, python=python))

    @property
    def pool(self) -> OfficePool:
        """The offices this renderer converts in (shared with the process's alike renderers)."""
        if self._pool is None:
            raise RefigError("the libreoffice renderer is closed")
        return self._pool

    def warm_up(self, offices: int) -> None:
        """Start up to ``offices`` warm offices now, without waiting for them, so their start-up
        overlaps the caller's other work (``refig check`` inspecting its files); the next
        :meth:`render` calls find them running. Nothing to do without UNO."""
        self.pool.warm_up(offices)

    # --- rendering ------------------------------------------------------------------------------

    def render(self, jobs: Sequence[RenderJob], out_dir: Path) -> list[RenderOutput]:
        """The pages (or a typed failure) of each job, in order; never raises for a bad file."""
        out_dir = Path(out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
        every = frozenset(index for index, job in enumerate(jobs) if job.pages == "all")
        if not jobs:
            return []
        chunks: list[tuple[Chunk, bool]] = []
        for hidden in (False, True):  # one export filter per chunk
            items = [(index, Path(job.path)) for index, job in enumerate(jobs)
                     if job.hidden is hidden]
            size = min(self.batch_size, max(1, math.ceil(len(items) / self.workers)))
            chunks += [(items[i : i + size], hidden) for i in range(0, len(items), size)]
        results: dict[int, RenderOutput] = {}
        if len(chunks) == 1:
            results.update(self._render_chunk(*chunks[0], out_dir, every))
        else:
            with ThreadPoolExecutor(min(self.workers, len(chunks))) as pool:
                def run(chunk: tuple[Chunk, bool]) -> dict[int, RenderOutput]:
                    return self._render_chunk(*chunk, out_dir, every)

                for done in pool.map(run, chunks):
                    results.update(done)
        return [results[index] for index in range(len(jobs))]

    def _converted(
        self, chunk: Chunk, profile: Profile, hidden: bool
    ) -> Iterator[tuple[int, Path | ErrorInfo, float]]:
        """Each item's PDF or failure, with the conversion's seconds, as soon as it is ready."""
        started = time.monotonic()
        if self.pool.warm is not None:
            for index, result in self.pool.warm.convert(chunk, profile, hidden=hidden):
                yield index, result, time.monotonic() - started
                started = time.monotonic()
            return
        converted = self.pool.converter.convert(chunk, profile, hidden=hidden)
        share = (time.monotonic() - started) / len(chunk)
        for index, _ in chunk:
            yield index, converted[index], share

    def _render_chunk(
        self, chunk: Chunk, hidden: bool, out_dir: Path, every: frozenset[int]
    ) -> dict[int, RenderOutput]:
        sources = dict(chunk)
        outputs: dict[int, RenderOutput] = {}
        profile = self.pool.acquire()
        try:
            # Rasterised as each PDF arrives: the warm office converts the next file meanwhile.
            for index, result, seconds in self._converted(chunk, profile, hidden):
                outputs[index] = self._rasterise(sources[index], result, seconds, out_dir,
                                                 all_pages=index in every)
        finally:
            self.pool.release(profile)
        return outputs

    def _rasterise(self, source: Path, result: Path | ErrorInfo, seconds: float, out_dir: Path,
                   *, all_pages: bool) -> RenderOutput:
        """The PNG pages of one converted PDF (removed after), or the conversion's failure."""
        if isinstance(result, ErrorInfo):
            return RenderOutput(error=result, seconds=seconds)
        started = time.monotonic()
        stem = tempfile.mkdtemp(prefix=f"{source.stem}-", dir=out_dir)
        try:
            pages = pdf_to_pngs(result, Path(stem), width=self.width,
                                aspect=slide_aspect(source), all_pages=all_pages)
            return RenderOutput(pages=tuple(pages),
                                seconds=seconds + time.monotonic() - started)
        except (RasterError, OSError, ValueError) as exc:
            shutil.rmtree(stem, ignore_errors=True)
            error = ErrorInfo(kind="render_failed", message=f"PDF to PNG failed: {exc}")
            return RenderOutput(error=error, seconds=seconds)
        finally:
            result.unlink(missing_ok=True)

    def environment(self) -> Mapping[str, str]:
        """LibreOffice's version, the render settings, the fonts it sees (how many, which, and
        a digest of their files) and the PDF rasteriser's version."""
        return {"version": self.version, "settings": self.settings,
                "fonts": str(len(self.fonts)),
                "font_families_sha256": hashlib.sha256(
                    "\n".join(self.fonts).encode()).hexdigest(),
                "font_files_sha256": font_files_digest(),
                "pypdfium2": distribution_version("pypdfium2")}

    def close(self) -> None:
        """Leave the offices: the last renderer using them stops them and removes the profiles
        and scratch files."""
        pool, self._pool = self._pool, None
        if pool is not None:
            leave(pool)

    def __enter__(self) -> LibreOfficeRenderer:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
