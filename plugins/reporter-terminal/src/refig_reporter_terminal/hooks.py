"""Registers the `terminal`, `json` and `verdicts` reporters and the `refig suite info` and
`refig compare` commands; the analysis toolkit is imported only when one of them runs."""

from __future__ import annotations

from collections.abc import Iterator

import typer
from refig.plugin import ReporterRecord, hookimpl


@hookimpl
def refig_reporters() -> Iterator[ReporterRecord]:
    from refig_reporter_terminal.reporters import JsonReporter, TerminalReporter, VerdictsReporter

    yield ReporterRecord(
        name="terminal",
        description="The report's tables in the terminal (rich).",
        factory=lambda **_: TerminalReporter(),
    )
    yield ReporterRecord(
        name="json",
        description="One JSON document holding every table of the report.",
        factory=lambda **_: JsonReporter(),
    )
    yield ReporterRecord(
        name="verdicts",
        description="Each configuration's mean total, editability and caps under a judge "
        "(JSON): what `refig demo` prints.",
        factory=lambda **_: VerdictsReporter(),
    )


@hookimpl
def refig_commands(app: typer.Typer) -> None:
    from refig_reporter_terminal import compare, suite_info

    suite_info.register(app)
    compare.register(app)
