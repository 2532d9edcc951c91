"""``refig report``: the paper's tables in the terminal, and HTML, LaTeX, JSON and figure exports.

The analysis runs once; each reporter (a plugin, selected by the options) renders it. Every
reporter is resolved before any work, so a missing plugin exits 2 at once.
"""

from __future__ import annotations

from pathlib import Path

import typer

from refig.plugins import Registry, Selection
from refig.records import PluginKind


def _reporter_option(value: str) -> tuple[str, Path | None]:
    name, sep, target = value.partition("=")
    return name, Path(target) if sep else None


def register(app: typer.Typer, registry: Registry) -> None:
    @app.command("report")
    def report(
        run: Path = typer.Argument(..., help="The run directory."),
        html: Path | None = typer.Option(None, "--html", help="Write the static HTML report here."),
        latex: Path | None = typer.Option(
            None, "--latex", help="Write booktabs LaTeX tables here."
        ),
        figures: Path | None = typer.Option(
            None, "--figures", help="Write the figures (PNG and SVG) here."
        ),
        as_json: bool = typer.Option(
            False, "--json", help="Print one JSON document with every table (instead of tables)."
        ),
        judge: str | None = typer.Option(
            None, "--judge", help="The judge of the main tables (default: the most complete)."
        ),
        reporters: list[str] = typer.Option(
            [], "--reporter", help="Any installed reporter, as NAME or NAME=DIR (repeatable)."
        ),
        resamples: int = typer.Option(
            10_000, "--resamples", min=100, help="Bootstrap resamples for means and effects."
        ),
        elo_resamples: int = typer.Option(
            1000, "--elo-resamples", min=10, help="Cluster-bootstrap refits for the Elo intervals."
        ),
        seed: int = typer.Option(0, "--seed", help="Seed of every resampling."),
        quiet: bool = typer.Option(False, "-q", "--quiet", help="No progress or file messages."),
    ) -> None:
        """Tables of a run with intervals: means, audits, effects, judges, Elo, sensitivity."""
        from refig.analysis import Options, analyse
        from refig.console import err
        from refig.store import RunStore

        store = RunStore.open(run)
        wanted: list[tuple[Selection, Path | None]] = []
        if not as_json:
            wanted.append((registry.resolve(PluginKind.REPORTER, "terminal"), None))
        for name, target in (("html", html), ("latex", latex), ("figures", figures)):
            if target is not None:
                wanted.append((registry.resolve(PluginKind.REPORTER, name), target))
        for value in reporters:
            name, target = _reporter_option(value)
            wanted.append((registry.resolve(PluginKind.REPORTER, name), target))
        if as_json:
            wanted.append((registry.resolve(PluginKind.REPORTER, "json"), None))
        options = Options(judge=judge, resamples=resamples, elo_resamples=elo_resamples, seed=seed)
        analysis = analyse(store, options, quiet=quiet or as_json)
        shared = {"analysis": analysis, "quiet": quiet or as_json, "judge": judge}
        for selection, target in wanted:
            written = selection.create().report(store.root, target, shared)
            if written is not None and not quiet:
                err.print(f"{selection.record.name} report: {written}")
