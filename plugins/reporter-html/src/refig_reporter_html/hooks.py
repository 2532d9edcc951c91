"""Registers the `html` reporter; jinja2 and matplotlib are imported only when it runs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from refig.plugin import ReporterRecord, hookimpl


def _factory(**options: Any) -> Any:
    from refig_reporter_html.reporter import HtmlReporter

    return HtmlReporter(**options)


@hookimpl
def refig_reporters() -> Iterator[ReporterRecord]:
    yield ReporterRecord(
        name="html",
        description="A static HTML report that opens offline: leaderboard, a page per "
        "configuration and per task (renderings, difference overlays, audits, judges, votes).",
        factory=_factory,
    )
