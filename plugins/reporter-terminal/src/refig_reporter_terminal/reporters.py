"""The ``terminal`` and ``json`` reporters (``refig report RUN``, ``refig report RUN --json``), and
``verdicts``, what ``refig demo`` prints of each run."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from refig.plugin import Reporter


class TerminalReporter(Reporter):
    """Prints every table of the report with rich (best per column marked)."""

    def report(self, run_dir: Path, out: Path | None, options: Mapping[str, Any]) -> Path | None:
        from refig.plugin import out as console
        from refig_toolkit_analysis import analysis_for

        from refig_reporter_terminal.terminal import print_analysis

        print_analysis(analysis_for(run_dir, options), console)
        return None


class JsonReporter(Reporter):
    """One JSON document with every table: to stdout, or to ``out`` (a file or a directory)."""

    def report(self, run_dir: Path, out: Path | None, options: Mapping[str, Any]) -> Path | None:
        from refig_toolkit_analysis import analysis_for

        return _write_json(analysis_for(run_dir, options).as_dict(), out, "report.json")


class VerdictsReporter(Reporter):
    """Each configuration's mean total, editability (null when the rubric has none) and caps
    under ``options["judge"]`` (else under every judge of the run), as JSON: to stdout, or to
    ``out`` (a file or a directory)."""

    def report(self, run_dir: Path, out: Path | None, options: Mapping[str, Any]) -> Path | None:
        from refig_toolkit_analysis import RunStore, verdicts

        found = verdicts(RunStore.open(run_dir), options.get("judge"))
        document = {"run": str(run_dir), "judges": {
            label: [{k: None if isinstance(v, float) and math.isnan(v) else v
                     for k, v in row.items()} for row in rows]
            for label, rows in found.items()}}
        return _write_json(document, out, "verdicts.json")


def _write_json(document: dict[str, Any], out: Path | None, name: str) -> Path | None:
    """``document`` as indented JSON: printed when ``out`` is None, else written to ``out``
    (a file), or to ``out/name`` (a directory)."""
    text = json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False)
    if out is None:
        print(text)
        return None
    target = out / name if out.is_dir() or not out.suffix else out
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text + "\n", encoding="utf-8")
    return target
