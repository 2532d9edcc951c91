"""``refig demo``: the whole pipeline offline on the built-in sample suite, ending in a report."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from refig.console import format_duration, out, print_table
from refig.plugins import Registry


def register(app: typer.Typer, registry: Registry) -> None:
    @app.command("demo")
    def demo(
        out_dir: Path = typer.Option(
            Path("refig-demo"), "--out", "-o", help="Where the suite, run and report go."
        ),
        tasks: int = typer.Option(6, "--tasks", "-n", min=2, max=50, help="Sample figures."),
        seed: int = typer.Option(0, "--seed", help="Seed of the sample suite."),
        jobs: int = typer.Option(2, "--jobs", "-j", min=1, help="Work items at once."),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="Only the final summary."),
    ) -> None:
        """Build a sample suite, run the cv and raster-paste baselines, evaluate, and report.

        Offline and model-free: the judge is the deterministic `metrics` proxy, scored once.
        Run it again to resume; finished work is kept in the run store.
        """
        import time

        from refig.demo import run_demo

        started = time.monotonic()
        outcome = run_demo(registry, out_dir, tasks=tasks, seed=seed, jobs=jobs, quiet=quiet)
        table = Table(title="refig demo: the proxy judge's verdict", title_justify="left")
        for column in ("configuration", "mean total /100", "editability /25", "capped"):
            table.add_column(column)
        for v in outcome.verdicts:
            table.add_row(v.config_id, f"{v.total:.1f}", f"{v.editability:.1f}",
                          f"{v.capped}/{v.judged}")
        if outcome.sight:
            table.caption, table.caption_justify = f"a proxy: {outcome.sight}", "left"
        print_table(out, table)
        paste, native = outcome.verdict("raster-paste"), outcome.verdict("cv")
        caught = paste.judged > 0 and paste.capped == paste.judged
        below = paste.editability < native.editability
        mark = "[green]yes[/]" if caught and below else "[bold red]NO[/]"
        out.print(f"raster paste caught by the flattening cap and below cv on editability: {mark}")
        out.print(f"suite   {outcome.suite}\nrun     {outcome.run}\n"
                  f"report  {outcome.html / 'index.html'}  (open it in a browser)")
        out.print(f"finished in {format_duration(time.monotonic() - started)}; next: "
                  "docs/running.md shows a real experiment with Claude Code and Codex")
        if not (caught and below):
            raise typer.Exit(1)
