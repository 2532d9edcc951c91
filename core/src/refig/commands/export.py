"""``refig export``: a run store table as JSON lines or CSV."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from refig.console import err
from refig.plugins import Registry
from refig.store import TABLES_BY_NAME, RunStore


def register(app: typer.Typer, registry: Registry) -> None:
    @app.command("export")
    def export(
        run: Path = typer.Argument(..., help="The run directory."),
        table: str = typer.Option(
            ..., "--table", "-t", help=f"One of: {', '.join(sorted(TABLES_BY_NAME))}."
        ),
        fmt: str = typer.Option("jsonl", "--format", "-f", help="jsonl or csv."),
        output: Path | None = typer.Option(None, "--out", "-o", help="File (default stdout)."),
    ) -> None:
        """Export one table of a run for analysis elsewhere."""
        store = RunStore.open(run)
        if output is None:
            n = store.export(table, fmt, sys.stdout)
        else:
            with output.open("w", newline="") as handle:
                n = store.export(table, fmt, handle)
        err.print(f"exported {n} {table} rows" + (f" to {output}" if output else ""))
