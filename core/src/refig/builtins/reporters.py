"""The built-in ``terminal`` and ``json`` reporters.

They live in core, unlike the HTML, LaTeX and figure reporters, because ``refig report`` must work
on a bare install and they need nothing beyond rich and the standard library.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from refig.hookspecs import hookimpl
from refig.records import ReporterRecord


class TerminalReporter:
    """Prints every table of the report with rich (best per column marked)."""

    def report(self, run_dir: Path, out: Path | None, options: Mapping[str, Any]) -> Path | None:
        from refig.analysis import analysis_for
        from refig.builtins.terminal import print_analysis
        from refig.console import out as console

        print_analysis(analysis_for(run_dir, options), console)
        return None


class JsonReporter:
    """One JSON document with every table: to stdout, or to ``out`` (a file or a directory)."""

    def report(self, run_dir: Path, out: Path | None, options: Mapping[str, Any]) -> Path | None:
        from refig.analysis import analysis_for

        document = analysis_for(run_dir, options).as_dict()
        text = json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False)
        if out is None:
            print(text)
            return None
        target = out / "report.json" if out.is_dir() or not out.suffix else out
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text + "\n", encoding="utf-8")
        return target


@hookimpl
def refig_reporters() -> Iterator[ReporterRecord]:
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
