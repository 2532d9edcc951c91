"""`refig doctor` checks: each language's toolchain, with the apt command that installs it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from refig.plugin import Check, Status, apt_fix, tool

from refig_family_figure_to_code.languages import SPECS, Language
from refig_family_figure_to_code.toolchains import matlab_binary


def toolchain_checks() -> Iterator[Any]:
    """One check per language (optional: a missing toolchain fails only its language's tasks)."""
    for language, spec in SPECS.items():
        if language is Language.PYTHON:
            try:
                import matplotlib

                yield Check("figure-to-code python", Status.OK,
                            f"matplotlib {matplotlib.__version__} (Agg)")
            except ImportError:
                yield Check("figure-to-code python", Status.WARN, "matplotlib missing",
                            "uv sync --all-packages")
            continue
        if language is Language.MATLAB and (matlab := matlab_binary()):
            yield Check("figure-to-code matlab", Status.OK, f"MATLAB at {matlab}")
            continue
        argv = (spec.binary, "--version")
        yield tool(f"figure-to-code {language.value} ({spec.toolchain})", argv,
                   apt_fix(*spec.apt), purpose=f"{language.value} programs")
    yield tool("figure-to-code R ggplot2", ("Rscript", "-e", "cat(format(packageVersion("
               "'ggplot2')), '\\n')"), apt_fix("r-cran-ggplot2"), purpose="ggplot2 programs")
    yield tool("figure-to-code pgfplots", ("kpsewhich", "pgfplots.sty"),
               apt_fix("texlive-pictures"), purpose="TikZ/pgfplots programs")
    yield tool("figure-to-code gnuplot (Octave's pinned toolkit)", ("gnuplot", "--version"),
               apt_fix("gnuplot-nox"), purpose="Octave plots")
    yield tool("figure-to-code Ghostscript (Octave's print to PNG)", ("gs", "--version"),
               apt_fix("ghostscript"), purpose="Octave plots")
