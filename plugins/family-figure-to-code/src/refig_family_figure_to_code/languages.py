"""What is fixed about each of FigCodeBench's four languages: file name, toolchain, packages."""

from __future__ import annotations

from dataclasses import dataclass

from refig_metric_code.languages import Language

__all__ = ["SPECS", "Language", "LanguageSpec", "language_of_file", "spec"]


@dataclass(frozen=True)
class LanguageSpec:
    """Fixed facts of one language: the deliverable's file name and the toolchain that runs it."""

    language: Language
    program_file: str
    toolchain: str
    binary: str
    apt: tuple[str, ...]
    #: The folder name FigCodeBench's release uses for this language.
    release_folder: str


SPECS: dict[Language, LanguageSpec] = {
    Language.PYTHON: LanguageSpec(Language.PYTHON, "figure.py", "Python + matplotlib (Agg)",
                                  "python", (), "python"),
    Language.MATLAB: LanguageSpec(Language.MATLAB, "figure.m", "GNU Octave (gnuplot toolkit)",
                                  "octave", ("octave", "gnuplot-nox", "ghostscript",
                                             "fonts-freefont-otf"),
                                  "Matlab"),
    Language.R: LanguageSpec(Language.R, "figure.R", "Rscript (png device)", "Rscript",
                             ("r-base-core", "r-cran-ggplot2"), "R"),
    Language.LATEX: LanguageSpec(Language.LATEX, "figure.tex", "xelatex + PDFium", "xelatex",
                                 ("texlive-xetex", "texlive-pictures", "texlive-latex-extra"),
                                 "latex"),
}


def spec(language: Language | str) -> LanguageSpec:
    """The spec of ``language`` (a :class:`Language` or its name)."""
    return SPECS[Language.parse(str(language))]


def language_of_file(name: str) -> Language | None:
    """The language a program file's extension says (``.m`` MATLAB, ``.R``/``.r`` R...)."""
    suffix = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    return {"py": Language.PYTHON, "m": Language.MATLAB, "r": Language.R,
            "tex": Language.LATEX}.get(suffix)
