"""The language names of figure-to-code tasks (``params.language``), as the metrics read them."""

from __future__ import annotations

from enum import StrEnum


class Language(StrEnum):
    """A target language; the values are those of task params."""

    PYTHON = "python"
    MATLAB = "matlab"
    R = "r"
    LATEX = "latex"

    @classmethod
    def parse(cls, value: str) -> Language:
        """A language from a task param or a file extension name (``Matlab``, ``R``...)."""
        try:
            return cls(value.strip().lower())
        except ValueError:
            names = ", ".join(x.value for x in cls)
            raise ValueError(f"unknown language {value!r}; choose one of: {names}") from None
