"""``refig report``: the paper's tables in the terminal, and HTML, LaTeX, JSON and figure exports.

The analysis runs once; each reporter (a plugin, selected by the options) renders it. Every
reporter is resolved before any work, so a missing plugin exits 2 at once.
"""

from __future__ import annotations

from pathlib import Path

import typer

from refig.plugins import Registry


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
        zero_margin: str = typer.Option(
            "exclude", "--zero-margin",
            help="Human votes on pairs the judge scored level: exclude them and count them (the "
            "ReFigBench protocol) or count them as disagreements (the older convention).",
        ),
        count_failures: bool = typer.Option(
            False, "--count-failures",
            help="Score attempts that failed for the provider or the set-up (API errors, "
            "provider timeouts, missing keys) 0 instead of leaving them out of every mean.",
        ),
        judge_run: int | None = typer.Option(
            None, "--judge-run", min=1,
            help="Every table from judging run N alone (repeat N-1; 1 is ReFigBench's Table 2) "
            "instead of each artifact's mean over its repeats.",
        ),
        quiet: bool = typer.Option(False, "-q", "--quiet", help="No progress or file messages."),
    ) -> None:
        """Tables of a run with intervals: means, audits, effects, judges, Elo, sensitivity."""
        from refig.collection import collection_runs, report_collection
        from refig.errors import UsageError
        from refig.pipeline import ReportRequest
        from refig.pipeline import report as report_run

        if zero_margin not in ("exclude", "disagree"):
            raise UsageError(f"--zero-margin is exclude or disagree, not {zero_margin!r}")

        targets: list[tuple[str, Path | None]] = [
            (name, target) for name, target in
            (("html", html), ("latex", latex), ("figures", figures)) if target is not None]
        targets += [_reporter_option(value) for value in reporters]
        request = ReportRequest(
            run=run, targets=targets, as_json=as_json, judge=judge, resamples=resamples,
            elo_resamples=elo_resamples, seed=seed, quiet=quiet,
            zero_margin=zero_margin,  # type: ignore[arg-type]
            count_failures=count_failures, judge_run=judge_run,
        )
        # a folder of runs is a collection: one report over them all, each run's tables in turn
        if (runs := collection_runs(run)) is not None:
            report_collection(registry, request, runs)
        else:
            report_run(registry, request)
