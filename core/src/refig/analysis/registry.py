"""The ordered registry of report sections: named builders from a Context to tables.

:mod:`refig.analysis.sections` registers the built-in sections; other code (the annotator tables
of :mod:`refig.annotation.agreement`, a plugin) adds its own with :func:`register_section`, and
every reporter then renders them with no change.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from refig.analysis.context import Context
from refig.analysis.tables import Table

SectionBuilder = Callable[[Context], Iterable[Table]]

_SECTIONS: list[tuple[str, SectionBuilder]] = []


def register_section(name: str, builder: SectionBuilder, *, after: str | None = None) -> None:
    """Add (or replace) a named section builder, at the end or right after section ``after``."""
    global _SECTIONS
    _SECTIONS = [(n, b) for n, b in _SECTIONS if n != name]
    names = [n for n, _ in _SECTIONS]
    position = names.index(after) + 1 if after in names else len(_SECTIONS)
    _SECTIONS.insert(position, (name, builder))


def sections() -> list[tuple[str, SectionBuilder]]:
    """The registered builders, in report order."""
    return list(_SECTIONS)
