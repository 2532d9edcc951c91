"""``refig export``: a run store table as JSON lines or CSV."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from refig.console import err
from refig.errors import RefigError
from refig.plugins import Registry
from refig.store import EXPORT_FORMATS, TABLES_BY_NAME, RunStore, export_table


def register(app: typer.Typer, registry: Registry) -> None:
    @app.command("export")
    def export(
        run: Path = typer.Argument(..., help="The run directory."),
        table: str = typer.Option(
            ..., "--table", "-t", help=f"One of: {', '.join(sorted(TABLES_BY_NAME))}."
        ),
        fmt: str = typer.Option(
            "jsonl", "--format", "-f", help=f"{' or '.join(EXPORT_FORMATS)}."
        ),
        output: Path | None = typer.Option(None, "--out", "-o", help="File (default stdout)."),
    ) -> None:
        """Export one table of a run for analysis elsewhere."""
        export_table(table, fmt)  # a wrong name exits 2 before any file is created
        store = RunStore.open(run)
        if output is None:
            n = store.export(table, fmt, sys.stdout)
        else:
            try:
                with output.open("w", newline="", encoding="utf-8") as handle:
                    n = store.export(table, fmt, handle)
            except OSError as exc:
                raise RefigError(f"cannot write the export: {exc.strerror}", path=output,
                                 fix="choose a writable --out path in an existing folder") from exc
        err.print(f"exported {n} {table} rows" + (f" to {output}" if output else ""))
