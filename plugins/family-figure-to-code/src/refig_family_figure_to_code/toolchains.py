"""How each language's toolchain is started on a program, and how its failures are read.

The command lines are fixed here: Python with this environment's interpreter and matplotlib's
Agg backend; R through ``Rscript --vanilla`` with a png device; MATLAB through GNU Octave with the
gnuplot graphics toolkit pinned (the qt toolkit needs a display server and draws differently),
or through MATLAB itself (``matlab -batch``) when one is on ``PATH``; LaTeX through ``xelatex``
without shell escape. Each driver exits 3 for a syntax error and 4 for a runtime error. The
capture protocol (:mod:`.capture`) decides the image's size and resolution.
"""

from __future__ import annotations

import re
import shutil
import sys
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from refig_family_figure_to_code.capture import FIGCODEBENCH, FIGCODEBENCH_DPI, REFIG
from refig_family_figure_to_code.languages import Language
from refig_family_figure_to_code.machine_caches import fontconfig_binds, latex_caches

#: The file name the program is run under: ``figure.m`` would shadow MATLAB's ``figure``.
RUN_NAMES = {Language.PYTHON: "figure.py", Language.MATLAB: "refig_main.m",
             Language.R: "figure.R", Language.LATEX: "figure.tex"}
#: Where the driver saves the figure left open when the program saved none itself.
CAPTURE = "refig_capture.png"
DPI = 100

#: Calls MATLAB has and GNU Octave 7 does not: a program using them cannot run under Octave.
MATLAB_ONLY = ("exportgraphics", "tiledlayout", "nexttile", "geoplot", "geoscatter",
               "geobubble", "geodensityplot", "geobasemap", "geolimits", "uifigure", "swarmchart",
               "bubblechart", "donutchart", "piechart", "boxchart", "wordcloud", "heatmap",
               "stackedplot", "parallelplot", "scatterhistogram", "exportapp",
               "xline", "yline", "colororder", "sgtitle")
#: What ``matlab -batch`` runs: the program, then the open figure saved (100 dpi; 300 dpi under
#: the figcodebench protocol, as the release's script).
_MATLAB_BATCH = ("set(groot, 'defaultFigureVisible', 'off'); try, run('{program}'); catch e, "
                 "fprintf(1, 'error: %s\\n', e.message); exit(4); end; "
                 "if ~isempty(get(groot, 'Children')), "
                 "exportgraphics(gcf, '{image}', 'Resolution', {dpi}); end; exit(0)")
_UNDEFINED = re.compile(r"'(\w+)' undefined")
_MISSING_PACKAGE = re.compile(r"File `([^']+\.(?:sty|cls))' not found")
_MISSING_INPUT = re.compile(r"(?:Could not read table file|File `[^']+' not found|"
                            r"Unable to load picture)")
_R_MISSING_PACKAGE = re.compile(r"there is no package called")


#: The toolchain label of GNU Octave standing in for MATLAB (a warm server's is ``octave (warm)``).
OCTAVE = "octave"


def octave_made(toolchain: str) -> bool:
    """Whether a run labelled ``toolchain`` ran in GNU Octave, cold or warm."""
    return toolchain.partition(" ")[0] == OCTAVE


@dataclass(frozen=True)
class Launch:
    """One command that runs a program, with the environment variables it needs."""

    argv: tuple[str, ...]
    env: dict[str, str]
    toolchain: str
    #: Host paths outside /usr the toolchain reads (configuration, TeX formats).
    binds: tuple[Path, ...] = ()


def _driver(name: str, workdir: Path) -> str:
    target = workdir / name
    target.write_bytes(resources.files("refig_family_figure_to_code.drivers").joinpath(name)
                       .read_bytes())
    return name


def matlab_binary() -> str | None:
    """MATLAB itself, when installed: it runs MATLAB programs in place of Octave."""
    return shutil.which("matlab")


def binary(language: Language) -> str | None:
    """The toolchain executable for ``language``, or None when it is not installed."""
    if language is Language.PYTHON:
        return sys.executable
    if language is Language.MATLAB:
        return matlab_binary() or shutil.which("octave")
    return shutil.which({Language.R: "Rscript", Language.LATEX: "xelatex"}[language])


def launch(language: Language, workdir: Path, width: int, height: int,
           protocol: str = REFIG, shared_caches: bool = True) -> Launch:
    """The command that runs ``RUN_NAMES[language]`` in ``workdir`` at the target size (under
    the ``figcodebench`` protocol, at the release's size: the program written by
    :func:`.capture.figcodebench_python` saves its own figure). With ``shared_caches`` R,
    Octave and xelatex read this machine's font cache, and xelatex its format uncompressed
    (:mod:`.machine_caches`: the same pixels, less work a run)."""
    program = RUN_NAMES[language]
    release = protocol == FIGCODEBENCH
    fonts = fontconfig_binds() if shared_caches else ()
    if language is Language.PYTHON:
        driver = _driver("run_python.py", workdir)
        return Launch((sys.executable, "-I", driver, program, "" if release else CAPTURE,
                       str(width), str(height), str(DPI)), {"MPLBACKEND": "Agg"}, "python")
    if language is Language.R:
        driver = _driver("run_figure.R", workdir)
        return Launch((shutil.which("Rscript") or "Rscript", "--vanilla", driver, program,
                       CAPTURE, str(width), str(height), protocol), {}, "Rscript",
                      (Path("/etc/R"), *fonts))
    if language is Language.MATLAB:
        driver = _driver("run_figure.m", workdir)
        env = {"REFIG_PROGRAM": program, "REFIG_IMAGE": CAPTURE, "REFIG_WIDTH": str(width),
               "REFIG_HEIGHT": str(height), "REFIG_PROTOCOL": protocol}
        matlab = matlab_binary()
        if matlab:  # MATLAB wants a script's local functions last: the driver is Octave's
            dpi = FIGCODEBENCH_DPI if release else DPI
            return Launch((matlab, "-batch", _MATLAB_BATCH.format(program=program,
                                                                  image=CAPTURE, dpi=dpi)),
                          env, "matlab")
        return Launch((shutil.which("octave") or "octave", "--no-gui", "--no-window-system",
                       "--norc", "--quiet", "--no-history", driver), env, OCTAVE,
                      (Path("/etc/octave"), *fonts))
    env, caches = latex_caches() if shared_caches else ({}, ())
    return Launch((shutil.which("xelatex") or "xelatex", "-interaction=nonstopmode",
                   "-halt-on-error", "-no-shell-escape", "-file-line-error", program), env,
                  "xelatex", (Path("/etc/texmf"), Path("/var/lib/texmf"), *caches))


def classify(language: Language, exit_code: int | None, output: str) -> str | None:
    """The typed failure a finished run's exit code and output say, or None when it ran."""
    if exit_code == 0:
        return None
    if exit_code == 3:
        return "syntax_error"
    if language is Language.MATLAB:
        undefined = _UNDEFINED.findall(output)
        if any(name in MATLAB_ONLY for name in undefined):
            return "toolchain_missing"
    if language is Language.R and _R_MISSING_PACKAGE.search(output):
        return "toolchain_missing"
    if language is Language.PYTHON and "ModuleNotFoundError" in output:
        return "toolchain_missing"
    if language is Language.LATEX:
        if _MISSING_PACKAGE.search(output):
            return "toolchain_missing"
        return "runtime_error" if _MISSING_INPUT.search(output) else "syntax_error"
    return "runtime_error"


def message(language: Language, output: str, limit: int = 2000) -> str:
    """The part of the interpreter's output that says what went wrong."""
    lines = output.splitlines()
    if language is Language.LATEX:
        errors = [i for i, line in enumerate(lines) if line.startswith("!") or ":error" in line
                  or re.match(r"^[^:\s]+:\d+: ", line)]
        if errors:
            lines = lines[errors[0]:errors[0] + 8]
    if language is Language.MATLAB:
        undefined = [n for n in _UNDEFINED.findall(output) if n in MATLAB_ONLY]
        if undefined:
            lines = [f"{undefined[0]} is MATLAB-only: GNU Octave cannot run it "
                     "(install MATLAB to run this program)", *lines]
    text = "\n".join(line for line in lines if line.strip())
    return text if len(text) <= limit else "..." + text[-limit:]
