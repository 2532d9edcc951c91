"""``refig demo``: the whole pipeline offline on the built-in sample suite, ending in a report."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.markup import escape
from rich.table import Table

from refig.console import format_duration, out, print_table
from refig.errors import docs
from refig.plugins import Registry
from refig.records import PluginKind, TaskFamilyRecord

if TYPE_CHECKING:
    from refig.demo import DemoOutcome


def register(app: typer.Typer, registry: Registry) -> None:
    baselines = "; ".join(f"{record.name}: {', '.join(record.demo.harnesses)}"
                          for record in registry.records(PluginKind.FAMILY)
                          if isinstance(record, TaskFamilyRecord) and record.demo is not None)

    @app.command("demo", help=f"""For each installed task family: build its sample suite, run
        its model-free baselines ({baselines or 'none installed'}), evaluate, and report.

        Offline and model-free: the judge is a deterministic proxy, scored once.
        Run it again to resume; finished work is kept in the run store.
        """)
    def demo(
        out_dir: Path = typer.Option(
            Path("refig-demo"), "--out", "-o", help="Where the suite, run and report go."
        ),
        tasks: int = typer.Option(6, "--tasks", "-n", min=2, max=50, help="Sample figures."),
        seed: int = typer.Option(0, "--seed", help="Seed of the sample suite."),
        jobs: int = typer.Option(2, "--jobs", "-j", min=1, help="Work items at once."),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="Only the final summary."),
    ) -> None:
        import time

        from refig.demo import run_demo

        started = time.monotonic()
        outcomes = run_demo(registry, out_dir, tasks=tasks, seed=seed, jobs=jobs, quiet=quiet)
        held = True
        for outcome in outcomes:
            held = _verdict(outcome) and held
        out.print(f"finished in {format_duration(time.monotonic() - started)}; next: "
                  f"{docs('running.md')} shows a real experiment with Claude Code and Codex",
                  soft_wrap=True)
        # the one command that opens every family's run at once
        out.print(f"browse all {len(outcomes)} runs: [bold]refig view {out_dir}[/]",
                  soft_wrap=True)
        if not held:
            raise typer.Exit(1)


def _verdict(outcome: DemoOutcome) -> bool:
    """Print one family's verdict table, its claim and where it wrote; True when the claim
    held."""
    demo = outcome.demo
    title = "refig demo: the proxy judge's verdict"
    if demo.folder:
        title += f" ({demo.family})"
    table = Table(title=title, title_justify="left")
    # editability is the ReFigBench rubric's axis; other families' rubrics have none
    editable = any(v.editability == v.editability for v in outcome.verdicts)
    columns = ("configuration", f"mean total /{outcome.total_max:g}",
               *(("editability /25",) if editable else ()), "capped")
    for column in columns:
        table.add_column(column)
    for v in outcome.verdicts:
        # a configuration id's [key=value] options are text, not rich markup
        table.add_row(escape(v.config_id), f"{v.total:.1f}",
                      *((f"{v.editability:.1f}",) if editable else ()), f"{v.capped}/{v.judged}")
    if outcome.sight:
        table.caption, table.caption_justify = f"a proxy: {outcome.sight}", "left"
    print_table(out, table)
    held = True
    if demo.check is not None:
        claim, held = demo.check(outcome)
        out.print(f"{claim}: " + ("[green]yes[/]" if held else "[bold red]NO[/]"))
    out.print(f"suite   {outcome.suite}\nrun     {outcome.run}\n"
              f"report  {outcome.html / 'index.html'}  (open it in a browser)")
    return held
