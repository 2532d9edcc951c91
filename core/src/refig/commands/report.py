"""``refig report``: the paper's tables in the terminal, and HTML, LaTeX, JSON and figure exports.

The analysis runs once; each reporter (a plugin, selected by the options) renders it. Every
reporter is resolved before any work, so a missing plugin exits 2 at once.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path
from typing import Literal

import typer

from refig.errors import UsageError
from refig.plugins import Registry


def _reporter_option(value: str) -> tuple[str, Path | None]:
    name, sep, target = value.partition("=")
    return name, Path(target) if sep else None


#: The direction-agreement bucket edges by default (ReFigBench's), as ``--margin-buckets``.
DEFAULT_MARGIN_BUCKETS = "0,2,5,10"


def checked_zero_margin(value: str | None, judge_run: int | None
                        ) -> Literal["exclude", "disagree"]:
    """``--zero-margin``, by default ``disagree`` with ``--judge-run`` and ``exclude`` else."""
    value = value or ("disagree" if judge_run is not None else "exclude")
    if value not in ("exclude", "disagree"):
        raise UsageError(f"--zero-margin is exclude or disagree, not {value!r}")
    return value  # type: ignore[return-value]


def margin_edges(value: str) -> tuple[float, ...]:
    """``0,2,5,10`` as increasing bucket edges, the last bucket open (infinity appended)."""
    try:
        edges = [float(part) for part in value.split(",")]
    except ValueError:
        edges = []
    if len(edges) < 2 or edges[0] < 0 or any(b <= a for a, b in itertools.pairwise(edges)):
        raise UsageError(f"--margin-buckets {value!r} is not increasing edges from 0 up",
                         fix="give comma-separated points, e.g. --margin-buckets 0,2,5,10")
    return (*edges, math.inf) if math.isfinite(edges[-1]) else tuple(edges)


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
        zero_margin: str | None = typer.Option(
            None, "--zero-margin",
            help="Human votes on pairs the judge scored level: exclude them and count them, or "
            "count them as disagreements. Default: ReFigBench's rule for the column, disagree "
            "(every decisive vote kept) with --judge-run, else exclude.",
        ),
        margin_buckets: str | None = typer.Option(
            None, "--margin-buckets",
            help="Edges of the direction-agreement buckets of |judge margin|, comma-separated; "
            "the last bucket is open (default 0,2,5,10: ReFigBench's).",
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
        paper: str | None = typer.Option(
            None, "--paper",
            help="With --latex DIR: write the tables and figures of this paper of the run's "
            "family (refigbench, pptarena, figcodebench), named as in the paper (table2.tex, "
            "figure4.pdf), and say which the run cannot make and why.",
        ),
        quiet: bool = typer.Option(False, "-q", "--quiet", help="No progress or file messages."),
        strict: bool = typer.Option(
            False, "--strict", help="Exit 1 when the run's evaluations or this report's options "
            "left the plan `refig lock` recorded (the report lists each deviation first)."),
    ) -> None:
        """Tables of a run with intervals: means, audits, effects, judges, Elo, sensitivity."""
        from refig.collection import collection_runs, report_collection
        from refig.pipeline import ReportRequest
        from refig.pipeline import report as report_run

        if paper is not None and latex is None:
            raise UsageError("--paper writes the paper's tables as LaTeX, so it needs a folder",
                             fix=f"add --latex DIR: refig report RUN --paper {paper} --latex DIR")

        targets: list[tuple[str, Path | None]] = [
            (name, target) for name, target in
            (("html", html), ("latex", latex), ("figures", figures)) if target is not None]
        targets += [_reporter_option(value) for value in reporters]
        request = ReportRequest(
            run=run, targets=targets, as_json=as_json, judge=judge, resamples=resamples,
            elo_resamples=elo_resamples, seed=seed, quiet=quiet,
            zero_margin=checked_zero_margin(zero_margin, judge_run),
            count_failures=count_failures, judge_run=judge_run,
            buckets=margin_edges(margin_buckets or DEFAULT_MARGIN_BUCKETS), strict=strict,
            paper=paper,
        )
        # a folder of runs is a collection: one report over them all, each run's tables in turn
        if (runs := collection_runs(run)) is not None:
            report_collection(registry, request, runs)
        else:
            report_run(registry, request)
