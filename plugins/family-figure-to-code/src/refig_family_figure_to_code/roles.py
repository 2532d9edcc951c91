"""The input and output roles of figure-to-code tasks (the task schema's names)."""

from __future__ import annotations

FIGURE = "figure"
REFERENCE_CODE = "reference_code"
#: Data files are visible inputs named ``data/<file name>``.
DATA_PREFIX = "data/"
PROGRAM = "program"
