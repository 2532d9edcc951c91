"""``refig lock RUN``: record the analysis plan before the numbers exist; ``refig evaluate`` and
``refig report`` then list every deviation from it (``--strict``: exit 1)."""

from __future__ import annotations

from pathlib import Path

import typer

from refig.console import err
from refig.plugins import Registry

#: The help of the statistics options, which are those of ``refig report``.
AS_REPORT = "As `refig report` (docs/reports.md)."


def register(app: typer.Typer, registry: Registry) -> None:
    @app.command("lock")
    def lock(
        run: Path = typer.Argument(..., help="The run directory (from `refig run`)."),
        metric: list[str] = typer.Option(
            [], "--metric", "-m", help="The metrics (repeatable; default: the family's)."),
        metric_opt: list[str] = typer.Option(
            [], "--metric-opt", help="METRIC:KEY=VALUE for a metric (repeatable)."),
        judge: list[str] = typer.Option(
            [], "--judge", help="The judges (repeatable), as `refig evaluate --judge`."),
        judge_opt: list[str] = typer.Option(
            [], "--judge-opt", help="[JUDGE:]KEY=VALUE for the judges (repeatable)."),
        repeats: int = typer.Option(1, "--repeats", min=1, help="Judgments per artifact."),
        rubric: Path | None = typer.Option(
            None, "--rubric", help="The rubric TOML file (default: the family's)."),
        report_judge: str | None = typer.Option(
            None, "--report-judge", help="The judge of the report's main tables (`refig "
            "report --judge`; default: the most complete)."),
        resamples: int = typer.Option(10_000, "--resamples", min=100, help=AS_REPORT),
        elo_resamples: int = typer.Option(1000, "--elo-resamples", min=10, help=AS_REPORT),
        seed: int = typer.Option(0, "--seed", help=AS_REPORT),
        zero_margin: str | None = typer.Option(None, "--zero-margin", help=AS_REPORT),
        margin_buckets: str | None = typer.Option(None, "--margin-buckets", help=AS_REPORT),
        count_failures: bool = typer.Option(False, "--count-failures", help=AS_REPORT),
        judge_run: int | None = typer.Option(None, "--judge-run", min=1, help=AS_REPORT),
        replace: bool = typer.Option(
            False, "--replace", help="Replace the run's lock (refused without it)."),
    ) -> None:
        """Lock a run's analysis plan: judges and models, repeats, rubric and prompts by
        digest, metrics and versions, the report's statistics options, the suite's digest.

        The options are those of `refig evaluate` and `refig report` (their defaults when
        left out). The lock is stored in the run with the time; each evaluation that leaves it
        is recorded and said, and every report lists the deviations first.
        """
        from refig.commands.report import (
            DEFAULT_MARGIN_BUCKETS,
            checked_zero_margin,
            margin_edges,
        )
        from refig.pipeline import EvaluateRequest, ReportRequest
        from refig.pipeline import lock as lock_run

        statistics = ReportRequest(
            run=run, judge=report_judge, resamples=resamples, elo_resamples=elo_resamples,
            seed=seed, zero_margin=checked_zero_margin(zero_margin, judge_run),
            count_failures=count_failures, judge_run=judge_run,
            buckets=margin_edges(margin_buckets or DEFAULT_MARGIN_BUCKETS),
        ).statistics()
        request = EvaluateRequest(run=run, metrics=metric, metric_options=metric_opt,
                                  judges=judge, judge_options=judge_opt, repeats=repeats,
                                  rubric=rubric)
        made = lock_run(registry, request, statistics, replace=replace)
        err.print(f"locked {run} at {made.locked_at.isoformat()}: {len(made.plan)} plan "
                  f"entries (plan {made.digest})", highlight=False)
