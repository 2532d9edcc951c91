"""``refig export``: a run store table as JSON lines or CSV."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from refig.console import err
from refig.errors import RefigError
from refig.plugins import Registry


def register(app: typer.Typer, registry: Registry) -> None:
    @app.command("export")
    def export(
        run: Path = typer.Argument(..., help="The run directory."),
        table: str = typer.Option(
            ..., "--table", "-t", help="A table of the run store (a wrong name lists them)."
        ),
        fmt: str = typer.Option(
            "jsonl", "--format", "-f", help="jsonl or csv (a wrong one lists them)."
        ),
        output: Path | None = typer.Option(None, "--out", "-o", help="File (default stdout)."),
    ) -> None:
        """Export one table of a run for analysis elsewhere."""
        # imported here: the store pulls in pydantic's models, which `refig --help` never needs
        from refig.store import RunStore, export_table

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
        err.print(f"exported {n} {table} rows" + (f" to {output}" if output else ""),
                  soft_wrap=True)
