"""Registers the `latex` reporter."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from refig.plugin import ReporterRecord, hookimpl


def _factory(**options: Any) -> Any:
    from refig_reporter_latex.reporter import LatexReporter

    return LatexReporter(**options)


@hookimpl
def refig_reporters() -> Iterator[ReporterRecord]:
    yield ReporterRecord(
        name="latex",
        description="The report's tables as booktabs LaTeX (one file each, plus report.tex).",
        factory=_factory,
    )
