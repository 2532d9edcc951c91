"""The ordered report sections: core's, then each task family's placed after the section it
names. Families contribute theirs through ``TaskFamily.report_sections()``; nothing registers
by import side effect."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

from refig_toolkit_analysis.analysis.context import Context
from refig_toolkit_analysis.analysis.tables import Table

SectionBuilder = Callable[[Context], Iterable[Table]]


def ordered(
    core: Sequence[tuple[str, SectionBuilder]],
    contributed: Iterable[tuple[str, SectionBuilder, str | None]],
) -> list[tuple[str, SectionBuilder]]:
    """``core`` with each contributed ``(name, builder, after)`` inserted right after section
    ``after`` (at the end when ``after`` is None or unknown); a name given twice is kept once,
    the later one winning."""
    result = list(core)
    for name, builder, after in contributed:
        result = [(n, b) for n, b in result if n != name]
        names = [n for n, _ in result]
        position = names.index(after) + 1 if after in names else len(result)
        result.insert(position, (name, builder))
    return result


class Section(NamedTuple):
    """A named report section a family contributes: its builder, and the section it follows
    (None: at the end)."""

    name: str
    build: SectionBuilder
    after: str | None = None
