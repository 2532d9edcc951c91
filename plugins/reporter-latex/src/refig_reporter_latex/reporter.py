"""The `latex` reporter: ``tables/<key>.tex`` per table and a ``report.tex`` that inputs them;
with ``--paper NAME``, that paper's tables and figures instead (:mod:`.paper`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from refig.plugin import Reporter, UsageError


class LatexReporter(Reporter):
    """Writes booktabs tables a paper can ``\\input`` directly."""

    def report(self, run_dir: Path, out: Path | None, options: Mapping[str, Any]) -> Path | None:
        from refig_toolkit_analysis import analysis_for

        from refig_reporter_latex.tex import document, table_tex

        if out is None:
            raise UsageError("the latex reporter needs a directory", fix="pass --latex DIR")
        if options.get("paper"):
            from refig.plugin import err
            from refig_toolkit_analysis.papers import paper_for

            from refig_reporter_latex.paper import write_paper

            paper_for(str(options["paper"]), None)  # an unknown paper exits 2 before any work
            target, line = write_paper(analysis_for(run_dir, options), out, options)
            err.print(line, markup=False, highlight=False)
            return target
        analysis = analysis_for(run_dir, options)
        tables_dir = out / "tables"
        tables_dir.mkdir(parents=True, exist_ok=True)
        names = []
        for table in analysis.tables:
            if table.detail:
                continue
            (tables_dir / f"{table.key}.tex").write_text(table_tex(table), encoding="utf-8")
            names.append(table.key)
        target = out / "report.tex"
        target.write_text(document(f"refig report: {analysis.run.name}", names), encoding="utf-8")
        return target
