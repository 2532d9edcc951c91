"""``refig evaluate RUN``: gate, render, object tree and metrics for every attempt of a run,
then the judges given with ``--judge``."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from refig.console import err
from refig.plugins import Registry


def register(app: typer.Typer, registry: Registry) -> None:
    @app.command("evaluate")
    def evaluate(
        run: Path = typer.Argument(..., help="The run directory (from `refig run`)."),
        metric: list[str] = typer.Option(
            [], "--metric", "-m", help="Run only these metrics (repeatable); default: the "
            "installed metrics marked default."
        ),
        metric_opt: list[str] = typer.Option(
            [], "--metric-opt", help="METRIC:KEY=VALUE for a metric (repeatable), e.g. "
            "code:trivial_k=100 or code:codebert_model=DIR."
        ),
        renderer: str | None = typer.Option(
            None, "--renderer", help="The renderer (default: the run's task family's)."
        ),
        executor: str = typer.Option("local", "--executor", help="Where the work runs."),
        jobs: int = typer.Option(2, "--jobs", "-j", min=1, help="Work items at once."),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress output."),
        judge: list[str] = typer.Option(
            [], "--judge", help="Score with this judge after the metrics (repeatable): gpt-5.4, "
            "qwen, metrics, litellm:PROVIDER/MODEL."
        ),
        judge_opt: list[str] = typer.Option(
            [], "--judge-opt", help="[JUDGE:]KEY=VALUE for the judges (repeatable): api_base, "
            "api_key, temperature, reasoning_effort, max_tokens, timeout, attempts..."
        ),
        repeats: int = typer.Option(
            1, "--repeats", min=1, help="Judgments per artifact and judge."
        ),
        budget: float | None = typer.Option(
            None, "--budget", min=0, help="Stop starting judge calls once this many USD are spent."
        ),
        rubric: Path | None = typer.Option(
            None, "--rubric", help="A rubric TOML file (default: the packaged ReFigBench rubric)."
        ),
        judge_jobs: int = typer.Option(
            8, "--judge-jobs", min=1, help="Most calls in flight per judge (adapts down on 429s)."
        ),
        rejudge_failed: bool = typer.Option(
            False, "--rejudge-failed", help="Judge again what a judge failed on before."
        ),
        no_canary: bool = typer.Option(
            False, "--no-canary", help="Add numbers without checking the golden canary first "
            "(`refig canary`); the run records that it was not checked."
        ),
        mixed_environments: bool = typer.Option(
            False, "--mixed-environments", help="Add numbers to a run evaluated before in "
            "other environments (another canary digest: the realiser's and toolchains' "
            "versions, the fonts and their files); the run lists every one."
        ),
        as_json: bool = typer.Option(
            False, "--json", help="Print what each stage and judge did as JSON (no progress)."
        ),
        strict: bool = typer.Option(
            False, "--strict", help="Refuse (exit 1, before any work) to evaluate other than "
            "the plan `refig lock` recorded; without it each deviation is said and recorded."),
    ) -> None:
        """Evaluate a run: inspection, rendering, the gate, the metrics and the judges, resumable.

        The run's family's golden canary is checked first (`refig canary`, cached per
        environment): when it fails nothing is added, unless --no-canary; nor when it passes in
        an environment none of the run's earlier evaluations passed in, unless
        --mixed-environments. Everything is stored
        in the run (inspections, renders, metrics, judgments tables; PNGs
        in objects/); work already stored is skipped, so an interrupted evaluation resumes and a
        repeated one makes no judge call.
        """
        from refig.pipeline import EvaluateRequest
        from refig.pipeline import evaluate as evaluate_run

        request = EvaluateRequest(
            run=run, metrics=metric, metric_options=metric_opt, renderer=renderer,
            executor=executor, jobs=jobs,
            judges=judge, judge_options=judge_opt, repeats=repeats, budget=budget, rubric=rubric,
            judge_jobs=judge_jobs, rejudge_failed=rejudge_failed, quiet=quiet or as_json,
            strict=strict,
            canary=not no_canary, mixed=mixed_environments,
        )
        try:
            outcome = evaluate_run(registry, request)
        except KeyboardInterrupt:
            # typer would end with a silent exit 130; say what was kept and how to go on
            err.print(f"interrupted: the work finished is stored in {run}, the work in flight "
                      "is not; run the same command again to resume", highlight=False)
            raise typer.Exit(130) from None
        if as_json:
            typer.echo(json.dumps(outcome.as_json(), indent=2))
        if outcome.failures:
            judged = outcome.judgments_failed
            what = f"{outcome.failures} work items failed" + (
                f" ({judged} of them judgments)" if judged else "")
            err.print(f"[red]{what}[/]; run again to retry them (failed judgments: "
                      "--rejudge-failed)")
            raise typer.Exit(1)
