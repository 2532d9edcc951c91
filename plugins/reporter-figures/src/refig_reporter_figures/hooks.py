"""Registers the `figures` reporter; matplotlib is imported only when it runs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from refig.plugin import ReporterRecord, hookimpl


def _factory(**options: Any) -> Any:
    from refig_reporter_figures.reporter import FiguresReporter

    return FiguresReporter(**options)


@hookimpl
def refig_reporters() -> Iterator[ReporterRecord]:
    yield ReporterRecord(
        name="figures",
        description="Figures of the report (forest plots of the total and per axis, judge vs "
        "Elo, axes, distributions): PNG, SVG and PDF.",
        factory=_factory,
    )
