"""The `program` renderer: realises a figure-to-code artifact by running it for real.

Each job's program runs in the sandbox (:mod:`.execution`) with the task's visible inputs
beside it: the figure under its own file name and each ``data/<name>`` input as ``<name>``,
captured by the task's protocol (``params.capture``, :mod:`.capture`). The image becomes the
one page; when it copies a visible input (:mod:`.copies`) the page says so in its PNG text
chunk :data:`COPIED_INPUT_KEY`, which the ``code`` metric reads as smuggling. The interpreter's
output becomes the log; a failure is typed (``syntax_error``, ``runtime_error``, ``timeout``,
``no_image``, ``too_large``, ``output_refused``, ``process_limit``, ``toolchain_missing``).
"""

from __future__ import annotations

import functools
import hashlib
import io
import re
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from PIL import Image
from PIL.PngImagePlugin import PngInfo
from refig.plugin import ErrorInfo, Renderer, RenderJob, RenderOutput, Task
from refig_metric_code.smuggling import COPIED_INPUT_KEY
from refig_toolkit_imaging import probe

from refig_family_figure_to_code import texfork
from refig_family_figure_to_code.capture import protocol_of
from refig_family_figure_to_code.execution import Execution, Limits, execute
from refig_family_figure_to_code.languages import Language, language_of_file
from refig_family_figure_to_code.roles import DATA_PREFIX, FIGURE
from refig_family_figure_to_code.toolchains import binary, matlab_binary
from refig_family_figure_to_code.warm import WARM_LANGUAGES, WarmInterpreter

SETTINGS_VERSION = "program/2"


def workspace_inputs(inputs: Mapping[str, Path], task: Task | None = None) -> dict[str, Path]:
    """Role -> path as file name -> path, laid out as the agent's workspace was: the figure as
    ``source.<ext>``, each ``data/<name>`` input there and also as ``<name>`` beside the
    program (FigCodeBench's programs read their data files by bare name)."""
    named: dict[str, Path] = {}
    for role, path in inputs.items():
        if role.startswith(DATA_PREFIX):
            named[role] = path
            named.setdefault(role.removeprefix(DATA_PREFIX), path)
        elif role == FIGURE:
            # a stored object has no suffix: the figure keeps its suite file's, as in the workspace
            asset = task.input(FIGURE) if task is not None else None
            suffix = Path(asset.path).suffix if asset is not None else path.suffix
            named[f"source{suffix.lower()}"] = path
    return named


def job_language(job: RenderJob) -> Language | None:
    """The task's language, else the one the file's extension says."""
    if job.task is not None and job.task.params.get("language"):
        return Language.parse(str(job.task.params["language"]))
    return language_of_file(job.path.name)


#: What each toolchain is asked for its version: Python as programs run it (isolated: no
#: PYTHONPATH, no user site) with matplotlib's version, the others' ``--version``.
VERSION_PROBES: dict[Language, tuple[str, ...]] = {
    Language.PYTHON: ("-I", "-c", "import sys; from importlib import metadata as m\n"
                      "try: v = m.version('matplotlib')\n"
                      "except m.PackageNotFoundError: v = 'not installed'\n"
                      "print(sys.version.split()[0], 'matplotlib', v)"),
    Language.MATLAB: ("--version",), Language.R: ("--version",), Language.LATEX: ("--version",),
}
#: Probes of what a toolchain draws with beyond its version: R's installed packages (name and
#: version, one a line) and the graphics toolkit Octave plots with, started as programs are.
PACKAGE_PROBES: dict[Language, tuple[str, ...]] = {
    Language.R: ("--vanilla", "-e", 'p <- installed.packages()[, c("Package", "Version"), '
                 'drop = FALSE]; cat(paste(p[, 1], p[, 2]), sep = "\\n")'),
    Language.MATLAB: ("--no-gui", "--no-window-system", "--norc", "--quiet", "--no-history",
                      "--eval", "disp(graphics_toolkit())"),
}
_FIX = "see `refig doctor`; reinstall the toolchain it names, or take it off PATH"


def toolchain_versions() -> str:
    """Each installed toolchain's version, ``language: version`` joined by ``; `` (the
    renderer's version): the toolchains found on PATH now, each probed once per executable."""
    return "; ".join(f"{language.value}: {_version(exe, VERSION_PROBES[language])}"
                     for language in Language if (exe := binary(language)) is not None)


@functools.cache
def _version(exe: str, args: tuple[str, ...]) -> str:
    if exe == matlab_binary():  # MATLAB has no --version: its installation says
        return matlab_version(exe)
    return probe([exe, *args], fix=_FIX).partition("\n")[0]


def matlab_version(exe: str) -> str:
    """``MATLAB 9.14.0.2206163 (R2023a)``, from the ``VersionInfo.xml`` of the installation
    ``exe`` (``<root>/bin/matlab``) belongs to, without starting MATLAB."""
    info = Path(exe).resolve().parents[1] / "VersionInfo.xml"
    try:
        text = info.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return f"MATLAB (no {info})"
    version, release = (re.search(rf"<{tag}>\s*([^<]*?)\s*</{tag}>", text)
                        for tag in ("version", "release"))
    return " ".join(["MATLAB", version.group(1) if version else "(version unknown)",
                     *([f"({release.group(1)})"] if release else [])])


def toolchain_environment() -> dict[str, str]:
    """What the programs' images depend on: each toolchain's version (Python with matplotlib,
    R, Octave or MATLAB, TeX Live's XeTeX), R's packages (how many, ggplot2's version and a
    digest of every name and version, sorted here, not in R's locale) and Octave's graphics
    toolkit with gnuplot's version."""
    found = {"toolchains": toolchain_versions()}
    for language, args in PACKAGE_PROBES.items():
        exe = binary(language)
        if exe is None or (language is Language.MATLAB and exe == matlab_binary()):
            continue
        found.update(_packages(language, exe, args))
    return found


@functools.cache
def _packages(language: Language, exe: str, args: tuple[str, ...]) -> dict[str, str]:
    lines = sorted({line.strip() for line in probe([exe, *args], fix=_FIX).splitlines()
                    if line.strip()})
    if language is Language.R:
        return {"r.packages": str(len(lines)),
                "r.packages_sha256": hashlib.sha256("\n".join(lines).encode()).hexdigest(),
                "r.ggplot2": next((line.split()[1] for line in lines
                                   if line.startswith("ggplot2 ")), "not installed")}
    gnuplot = shutil.which("gnuplot")
    return {"octave.graphics_toolkit": " ".join(lines) or "unknown",
            "octave.gnuplot": "not installed" if gnuplot is None
            else _version(gnuplot, ("--version",))}


def _page_png(execution: Execution) -> bytes:
    """The image as stored: with :data:`COPIED_INPUT_KEY` when it copies a visible input."""
    assert execution.png is not None
    if execution.copied_input is None:
        return execution.png
    info = PngInfo()
    info.add_text(COPIED_INPUT_KEY, execution.copied_input)
    buffer = io.BytesIO()
    with Image.open(io.BytesIO(execution.png)) as image:
        image.save(buffer, format="PNG", pnginfo=info)
    return buffer.getvalue()


#: How many xelatex servers, one per shared preamble, stay open at once.
LATEX_SERVERS = 4


class ProgramRenderer(Renderer):
    """Runs programs under the sandbox, each in a fresh private workspace: by default one
    fresh interpreter per program; with ``warm`` one reused interpreter per language where the
    language allows (:mod:`.warm`: faster, but programs share one sandbox)."""

    fonts: tuple[str, ...] = ()

    def __init__(self, *, deadline_s: float = 60.0, memory_mb: int = 4096,
                 warm: bool | str = False):
        self.limits = Limits(deadline_s=float(deadline_s), memory_mb=int(memory_mb))
        self.warm = str(warm).lower() in ("1", "true", "yes")
        # MATLAB programs run in MATLAB itself where it is installed, else in Octave: another
        # image, so another rendering (a run evaluated on both kinds of machine keeps both)
        engine = ";matlab" if matlab_binary() else ""
        self.settings = (f"{SETTINGS_VERSION};deadline={float(deadline_s):g};"
                         f"memory={memory_mb}{engine}")
        #: Warm interpreters by language and shared preamble (LaTeX's), the latest used last.
        self._interpreters: dict[tuple[Language, str], WarmInterpreter] = {}
        #: Preambles whose xelatex server did not start (an error in them): run cold.
        self._declined: set[str] = set()

    @property
    def version(self) -> str:
        return toolchain_versions()

    def environment(self) -> Mapping[str, str]:
        """The settings and every toolchain's versions and packages
        (:func:`toolchain_environment`)."""
        return {"settings": self.settings, **toolchain_environment()}

    def run(self, job: RenderJob) -> Execution | ErrorInfo:
        """Execute one job's program; an error when its language cannot be told."""
        language = job_language(job)
        if language is None:
            return ErrorInfo(kind="no_image", message=f"{job.path.name}: unknown language")
        try:
            program = job.path.read_bytes()
        except OSError as exc:
            return ErrorInfo(kind="runtime_error", message=f"cannot read the program: {exc}")
        params = job.task.params if job.task is not None else {}
        width, height = int(params.get("width", 640)), int(params.get("height", 480))
        inputs = workspace_inputs(job.inputs, job.task)
        try:
            protocol = protocol_of(params)
        except ValueError as exc:
            return ErrorInfo(kind="runtime_error", message=str(exc))
        interpreter = self._interpreter(language, program) if self.warm else None
        if interpreter is not None:
            try:
                return interpreter.execute(program, inputs=inputs, width=width, height=height,
                                           protocol=protocol)
            except RuntimeError:
                if language is not Language.LATEX:
                    raise
                self._declined.add(interpreter.shared)  # its preamble fails: cold tells how
                self._interpreters.pop((language, interpreter.shared)).close()
        return execute(program, language, inputs=inputs, width=width, height=height,
                       limits=self.limits, protocol=protocol)

    def _interpreter(self, language: Language, program: bytes) -> WarmInterpreter | None:
        """The warm interpreter for ``program``: its language's, or for LaTeX the server of its
        shared preamble (at most :data:`LATEX_SERVERS` kept); None when it has none (MATLAB
        itself runs cold: the warm server is Octave's)."""
        if language not in WARM_LANGUAGES or (language is Language.MATLAB and matlab_binary()):
            return None
        shared = ""
        if language is Language.LATEX:
            cut = texfork.split(program.decode("utf-8", errors="replace"))
            if cut is None or cut.shared in self._declined or texfork.library() is None:
                return None
            shared = cut.shared
        key = (language, shared)
        interpreter = self._interpreters.pop(key, None)
        self._interpreters[key] = interpreter or WarmInterpreter(language, self.limits,
                                                                 shared=shared)
        servers = [k for k in self._interpreters if k[0] is Language.LATEX]
        if len(servers) > LATEX_SERVERS:
            self._interpreters.pop(servers[0]).close()
        return self._interpreters[key]

    def render(self, jobs: Sequence[RenderJob], out_dir: Path) -> list[RenderOutput]:
        out_dir.mkdir(parents=True, exist_ok=True)
        outputs = []
        for index, job in enumerate(jobs):
            result = self.run(job)
            if isinstance(result, ErrorInfo):
                outputs.append(RenderOutput(error=result))
                continue
            if result.png is None:
                outputs.append(RenderOutput(error=result.error, seconds=result.seconds,
                                            log=result.log))
                continue
            page = out_dir / f"program-{index:04d}.png"
            page.write_bytes(_page_png(result))
            outputs.append(RenderOutput(pages=(page,), seconds=result.seconds, log=result.log))
        return outputs

    def close(self) -> None:
        """End the warm interpreters, if any."""
        for interpreter in self._interpreters.values():
            interpreter.close()
        self._interpreters.clear()
