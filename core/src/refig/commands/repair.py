"""``refig repair RUN``: verify a run's objects, re-make renderings, restore suite inputs."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from refig.console import err
from refig.plugins import Registry


def register(app: typer.Typer, registry: Registry) -> None:
    @app.command("repair")
    def repair_run(
        run: Path = typer.Argument(..., help="The run directory."),
        suite: Path | None = typer.Option(
            None, "--suite", help="The suite folder the run was made from: restores its "
            "figures and annotations when their objects are missing or damaged."
        ),
        jobs: int = typer.Option(2, "--jobs", "-j", min=1, help="Renderings at once."),
        forget_lost: bool = typer.Option(
            False, "--forget-lost", help="Remove the attempts whose outputs are lost, so the "
            "next `refig run` with the same options makes them again."
        ),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress output."),
        as_json: bool = typer.Option(False, "--json", help="Print the outcome as JSON."),
    ) -> None:
        """Check every stored object against its sha256; re-make lost renderings, restore the
        suite's inputs (--suite), and list what cannot be re-made (exit 1 while any remains)."""
        from refig.repair import repair

        report = repair(registry, run, suite=suite, jobs=jobs, quiet=quiet or as_json,
                        forget_lost=forget_lost)
        if as_json:
            typer.echo(json.dumps(report.as_json(), indent=2))
        elif not quiet:
            err.print(f"checked {report.checked} objects: {len(report.restored)} restored from "
                      f"the suite, {report.renders_remade} renderings re-made, "
                      f"{len(report.lost)} lost", highlight=False)
            for forgotten in report.forgotten:
                err.print(f"  forgotten: {forgotten} (its outputs were lost)", markup=False,
                          highlight=False)
            for lost in report.lost:
                err.print(f"  lost: {lost.line()}", markup=False, highlight=False)
            if report.forgotten:
                err.print("run `refig run` again with the same options to make the forgotten "
                          "attempts again", highlight=False)
            if report.lost:
                err.print("put the lost objects back from a backup (objects/ab/<sha256>); "
                          f"`refig repair {run} --forget-lost` removes the attempts whose "
                          "outputs are lost, so the next `refig run` makes them again",
                          highlight=False)
        if report.lost:
            raise typer.Exit(1)
