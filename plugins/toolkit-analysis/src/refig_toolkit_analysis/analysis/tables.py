"""Display-agnostic tables: what every reporter (terminal, JSON, LaTeX, HTML) renders.

Numbers are formatted here, once, so the terminal, the LaTeX tables and the HTML pages show the
same digits; each reporter only adds its own markup and escaping.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

ColumnKind = Literal["text", "int", "float", "pct", "estimate", "usd"]


@dataclass(frozen=True)
class Estimate:
    """A value with an optional interval (``low``/``high`` None when too few data for one)."""

    value: float
    low: float | None = None
    high: float | None = None

    def as_dict(self) -> dict[str, float | None]:
        return {
            "estimate": finite(self.value),
            "low": finite(self.low),
            "high": finite(self.high),
        }


Cell = str | int | float | Estimate | None


@dataclass(frozen=True)
class Column:
    """A column: its key in the rows, a label, how to format it and which end is best."""

    key: str
    label: str
    kind: ColumnKind = "text"
    digits: int = 1
    best: Literal["max", "min"] | None = None
    help: str = ""


@dataclass
class Table:
    """One table of the report.

    ``insufficient`` is set when the data are too few for the table to mean anything: reporters
    print that sentence instead of the rows. ``notes`` are caveats printed under the table.
    ``detail`` tables (one row per task) go to JSON and HTML, not to the terminal or LaTeX.
    """

    key: str
    title: str
    columns: list[Column]
    rows: list[dict[str, Cell]] = field(default_factory=list)
    description: str = ""
    notes: list[str] = field(default_factory=list)
    insufficient: str | None = None
    detail: bool = False
    #: Set when the table's question does not arise (a deterministic judge's repeatability).
    not_applicable: str | None = None

    @property
    def empty(self) -> bool:
        """True when there is nothing to print but :attr:`empty_sentence`."""
        return self.insufficient is not None or self.not_applicable is not None or not self.rows

    @property
    def empty_sentence(self) -> str:
        """Why an empty table is empty: ``Not applicable: ...`` or ``Too little data: ...``."""
        if self.not_applicable is not None:
            return f"Not applicable: {self.not_applicable}"
        return f"Too little data: {self.insufficient or 'no rows'}"

    def best_rows(self, key: str) -> set[int]:
        """Indices of the rows holding the best value of a column that declares one; a row
        that says why it must not win (:data:`UNRANKED`, e.g. smuggled) is never marked."""
        column = next((c for c in self.columns if c.key == key), None)
        if column is None or column.best is None or len(self.rows) < 2:
            return set()
        values = {i: number(row.get(key)) for i, row in enumerate(self.rows)
                  if not row.get(UNRANKED)}
        found = {i: v for i, v in values.items() if v is not None and math.isfinite(v)}
        if len(set(found.values())) < 2:
            return set()  # none, or all equal: marking every row would say nothing
        target = max(found.values()) if column.best == "max" else min(found.values())
        return {i for i, v in found.items() if v == target}

    def text(self, row: dict[str, Cell], key: str) -> str:
        """A cell as the report prints it."""
        column = next(c for c in self.columns if c.key == key)
        return format_cell(row.get(key), column)

    def as_dict(self) -> dict[str, Any]:
        """The JSON form: columns, rows with intervals as objects, best rows per column."""
        return {
            "key": self.key,
            "title": self.title,
            "description": self.description,
            "columns": [
                {"key": c.key, "label": c.label, "kind": c.kind, "best": c.best, "help": c.help}
                for c in self.columns
            ],
            "rows": [{k: _json_cell(v) for k, v in row.items()} for row in self.rows],
            "best": {
                c.key: sorted(self.best_rows(c.key)) for c in self.columns if c.best is not None
            },
            "notes": list(self.notes),
            "insufficient": self.insufficient,
            "not_applicable": self.not_applicable,
            "detail": self.detail,
        }


def number(cell: Cell) -> float | None:
    """The number a cell holds (an estimate's point value), or None."""
    if isinstance(cell, Estimate):
        return cell.value
    if isinstance(cell, bool) or not isinstance(cell, int | float):
        return None
    return float(cell)


def finite(value: float | None) -> float | None:
    """The value as a float, or None when it is missing, NaN or infinite (an empty cell)."""
    return None if value is None or not math.isfinite(value) else float(value)


def _json_cell(cell: Cell) -> Any:
    if isinstance(cell, Estimate):
        return cell.as_dict()
    if isinstance(cell, float):
        return finite(cell)
    return cell


#: A row key whose value (why: "smuggled", "capped") keeps the row out of every best mark.
UNRANKED = "unranked"


def format_number(value: float | None) -> str:
    """A measured number for a page, never in exponent notation: whole numbers with thousands
    separators (``90,050``, not ``9.005e+04``), others to 4 significant digits (``0.6931``,
    ``0.00001234``), ``—`` for missing or non-finite."""
    if value is None or not math.isfinite(value):
        return "—"
    if float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return str(np.format_float_positional(value, precision=4, fractional=False, trim="-"))


def _fmt(value: float, digits: int) -> str:
    return f"{value:.{digits}f}"


def format_cell(cell: Cell, column: Column) -> str:
    """``72.4 [68.1, 76.0]``, ``41.2%``, ``$0.153``, ``—`` for missing."""
    if cell is None:
        return "—"
    if isinstance(cell, str):
        return cell
    if isinstance(cell, Estimate):
        if not math.isfinite(cell.value):
            return "—"
        if column.kind == "pct":
            text = f"{100 * cell.value:.{column.digits}f}%"
            if cell.low is not None and cell.high is not None:
                text += (
                    f" [{100 * cell.low:.{column.digits}f}, {100 * cell.high:.{column.digits}f}]"
                )
            return text
        text = _fmt(cell.value, column.digits)
        if cell.low is not None and cell.high is not None:
            text += f" [{_fmt(cell.low, column.digits)}, {_fmt(cell.high, column.digits)}]"
        return text
    value = float(cell)
    if not math.isfinite(value):
        return "—"
    if column.kind == "int":
        return str(round(value))
    if column.kind == "pct":
        return f"{100 * value:.{column.digits}f}%"
    if column.kind == "usd":
        return f"{'-' if value < 0 else ''}${abs(value):.{max(column.digits, 3)}f}"
    return _fmt(value, column.digits)
