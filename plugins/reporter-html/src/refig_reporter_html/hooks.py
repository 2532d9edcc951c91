"""Registers the `html` reporter and the `refig view` command; jinja2 is imported only when
either runs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import typer
from refig.plugin import ReporterRecord, hookimpl


def _factory(**options: Any) -> Any:
    from refig_reporter_html.reporter import HtmlReporter

    return HtmlReporter(**options)


@hookimpl
def refig_reporters() -> Iterator[ReporterRecord]:
    yield ReporterRecord(
        name="html",
        description="A static HTML report that opens offline: the sample list, task pages "
        "(pictures, files, transcripts, judges, votes), summary tables and plots.",
        factory=_factory,
    )


@hookimpl
def refig_commands(app: typer.Typer) -> None:
    from refig_reporter_html.command import register

    register(app)
