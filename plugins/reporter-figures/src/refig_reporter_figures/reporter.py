"""The `figures` reporter: every figure of the report into a directory, PNG, SVG and PDF."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from refig.plugin import Reporter, UsageError


class FiguresReporter(Reporter):
    """Writes the figures of :mod:`refig_reporter_figures.plots` and says which were skipped."""

    def report(self, run_dir: Path, out: Path | None, options: Mapping[str, Any]) -> Path | None:
        from refig.plugin import err
        from refig_toolkit_analysis import analysis_for

        from refig_reporter_figures.plots import Skipped, write_figures

        if out is None:
            raise UsageError("the figures reporter needs a directory", fix="pass --figures DIR")
        found = write_figures(analysis_for(run_dir, options), out)
        if not options.get("quiet"):
            for item in found:
                if isinstance(item, Skipped):
                    err.print(f"figure {item.name} skipped: {item.reason}")
        return out
