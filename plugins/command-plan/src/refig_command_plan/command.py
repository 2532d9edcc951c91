"""``refig plan RUN --effect D --power P``: how many tasks and judge repeats a study needs to
detect a paired difference of D points, and what its agent runs and judging would cost, from a
pilot run (``docs/statistics.md#planning-a-study``)."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from refig.plugin import UsageError, out, print_table

if TYPE_CHECKING:
    from refig_toolkit_analysis.planning import Pilot, Plan


def _say(text: str) -> None:
    """One line as written: configuration ids may hold brackets, never read as markup."""
    out.print(text, markup=False, highlight=False)


def _usd(value: float | None) -> str:
    return "not recorded" if value is None else f"${value:,.2f}"


def _said(pilot: Pilot, plan: Plan) -> None:
    from rich.table import Table

    noise = ("0 (a deterministic judge)" if pilot.deterministic else
             "not separable (no artifact judged twice)" if pilot.judge_variance is None else
             f"SD {pilot.judge_variance ** 0.5:.2f} points per repeat (pooled over "
             f"{pilot.judged_twice} artifacts judged twice or more, {pilot.judge_df} df)")
    _say(f"Pilot {pilot.run}: judge {pilot.judge}, {pilot.tasks} tasks, "
              f"{pilot.repeats} judge repeat{'s' * (pilot.repeats != 1)} per artifact")
    _say(f"  judge noise: {noise}")
    for p in pilot.pairs:
        _say(f"  {p.treatment} − {p.baseline}: {p.tasks} tasks, mean Δ {p.mean:+.2f}, SD of "
                  f"Δ {p.observed ** 0.5:.2f} (without judge noise {p.task_variance ** 0.5:.2f}),"
                  f" judged share {p.judged_share:.2f}")
    _say(f"  cost: {_usd(pilot.attempt_cost)} per agent attempt (every try, "
              f"{pilot.attempt_cells} task x configuration cells), {_usd(pilot.judgment_cost)} "
              f"per judgment ({pilot.judgments_costed} with a cost)")
    _say(f"Plan: a paired difference of {plan.effect:g} points with power {plan.power:g} "
              f"(two-sided paired t test, alpha {plan.alpha:g}), {plan.configs} configurations, "
              f"sized for {plan.pair.treatment} − {plan.pair.baseline}")
    table = Table("judge repeats", "SD of Δ", "tasks", "tasks (normal approx.)", "agent runs",
                  "judging", "total")
    for row in plan.rows:
        table.add_row(str(row.repeats), f"{row.sd:.2f}", str(row.tasks), f"{row.normal_tasks:.1f}",
                      _usd(row.attempt_cost), _usd(row.judging_cost), _usd(row.total_cost))
    print_table(out, table)
    best = plan.recommended
    _say(f"Recommended: {best.tasks} tasks with {best.repeats} judge "
              f"repeat{'s' * (best.repeats != 1)} ({plan.reason}): agent runs "
              f"{_usd(best.attempt_cost)}, judging {_usd(best.judging_cost)}, total "
              f"{_usd(best.total_cost)}")
    if pilot.clustered:
        out.print("Note: the pilot has several tasks per source figure; the plan treats tasks as "
                  "independent, so plan with one task per figure or add tasks for the clustering")


def register(app: typer.Typer) -> None:
    @app.command("plan")
    def plan_command(
        run: Path = typer.Argument(..., help="The pilot run (two or more configurations, judged)."),
        effect: float = typer.Option(..., "--effect", help="The paired difference to detect, in "
                                     "points of the judge's total."),
        power: float = typer.Option(0.8, "--power", help="The power wanted (0 to 1)."),
        alpha: float = typer.Option(0.05, "--alpha", help="Two-sided level of the paired t test."),
        judge: str | None = typer.Option(None, "--judge", help="The judge (default: the report's "
                                         "main judge, the one with the most scored cells)."),
        pair: tuple[str, str] | None = typer.Option(
            None, "--pair", help="The treatment and baseline configuration ids to size for "
            "(default: every pair differing in one factor, the noisiest)."),
        configs: int = typer.Option(2, "--configs", min=2, help="Configurations the study "
                                    "runs (for its cost)."),
        max_repeats: int = typer.Option(5, "--max-repeats", min=1, help="Judge repeats to "
                                        "consider, 1 to this."),
        repeats: int | None = typer.Option(None, "--repeats", min=1, help="Plan for exactly "
                                           "this many judge repeats."),
        attempt_cost: float | None = typer.Option(
            None, "--attempt-cost", min=0, help="USD per agent attempt, instead of the pilot's."),
        judgment_cost: float | None = typer.Option(
            None, "--judgment-cost", min=0, help="USD per judgment, instead of the pilot's."),
        as_json: bool = typer.Option(False, "--json", help="The pilot and the plan as JSON."),
    ) -> None:
        """How many tasks and judge repeats a study needs, and what it costs, from a pilot run."""
        from refig_toolkit_analysis.planning import plan, read_pilot

        if not (run / "refig.db").is_file():
            raise UsageError(f"{run} is not a refig run (no refig.db)",
                             fix="give the directory `refig run --out` wrote")
        pilot = read_pilot(run, judge=judge, pair=pair)
        try:
            found = plan(pilot, effect=effect, power=power, alpha=alpha, configs=configs,
                         max_repeats=max_repeats, repeats=repeats, attempt_cost=attempt_cost,
                         judgment_cost=judgment_cost)
        except ValueError as exc:
            raise UsageError(f"refig plan: {exc}",
                             fix="give --effect above 0 points, 0 < --alpha < --power < 1, and "
                             "a pilot whose paired differences vary") from exc
        if as_json:
            document: dict[str, Any] = {"pilot": asdict(pilot), "plan": asdict(found)}
            typer.echo(json.dumps(document, indent=2, default=str))
            return
        _said(pilot, found)
