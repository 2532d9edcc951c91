"""The reference program of a (category, language) pair, from its seeded data."""

from __future__ import annotations

from collections.abc import Callable

from refig_family_figure_to_code.languages import Language
from refig_family_figure_to_code.sample import latex, matlab, python, r
from refig_family_figure_to_code.sample.data import SampleData

_MODULES = {Language.PYTHON: python, Language.R: r, Language.MATLAB: matlab,
            Language.LATEX: latex}


def reference_program(data: SampleData, language: Language) -> str:
    """The program that draws ``data`` in ``language``."""
    template: Callable[[SampleData], str] = getattr(_MODULES[language], data.category)
    return template(data)


def data_files(data: SampleData) -> dict[str, bytes]:
    """The data files a task of this category reads (statistical tasks read a CSV)."""
    return {"values.csv": data.csv().encode()} if data.category == "statistical" else {}
