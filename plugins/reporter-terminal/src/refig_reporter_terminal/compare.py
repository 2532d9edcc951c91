"""``refig compare RUN_A RUN_B``: what differs between two runs' environments, and which of
their numbers can be compared (:mod:`refig_toolkit_analysis.comparison`)."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from refig.plugin import out, print_table
from rich.table import Table


def register(app: typer.Typer) -> None:
    @app.command("compare")
    def compare(
        run_a: Path = typer.Argument(..., help="A run directory."),
        run_b: Path = typer.Argument(..., help="Another run directory."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON instead of tables."),
    ) -> None:
        """List what differs between two runs' environments (toolchains, fonts, model files,
        judge models, rubric, suite, versions) and which numbers can be compared."""
        from refig_toolkit_analysis import RunStore
        from refig_toolkit_analysis.comparison import compare_runs

        found = compare_runs(RunStore.open(run_a, readonly=True),
                             RunStore.open(run_b, readonly=True))
        if as_json:
            print(json.dumps(found.as_json(), indent=2))
            return
        differences = Table(title=f"What differs: A {run_a}, B {run_b}")
        for column in ("stage", "entry", "A", "B"):
            differences.add_column(column, overflow="fold")
        for d in found.differences:
            differences.add_row(d.stage, d.entry, d.a or "(not recorded)", d.b or "(not recorded)")
        if found.differences:
            print_table(out, differences)
        else:
            out.print("the two runs' recorded environments are the same")
        numbers = Table(title="Which numbers can be compared")
        for column in ("numbers", "comparable", "why not"):
            numbers.add_column(column, overflow="fold")
        for v in found.verdicts:
            numbers.add_row(v.numbers, "yes" if v.comparable else "[red]no[/]", v.why)
        print_table(out, numbers)
