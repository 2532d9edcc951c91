"""``refig doctor``: what is installed, what is missing, and the exact command to fix it."""

from __future__ import annotations

import json

import typer
from rich.markup import escape
from rich.table import Table

from refig.console import out, print_table
from refig.plugins import Registry

STYLE = {"ok": "green", "warn": "yellow", "missing": "bold red"}


def register(app: typer.Typer, registry: Registry) -> None:
    @app.command("doctor")
    def doctor(
        as_json: bool = typer.Option(False, "--json", help="Print a JSON list of checks."),
    ) -> None:
        """Check uv, Node, bubblewrap, the harness CLIs, API keys and what each plugin needs."""
        from refig.doctor import Status, run_checks

        checks = run_checks(registry)
        broken = [c for c in checks if c.required and c.status is Status.MISSING]
        if as_json:
            typer.echo(json.dumps([c.as_json() for c in checks], indent=2))
        else:
            table = Table(title="refig doctor", title_justify="left")
            for column in ("component", "status", "detail", "fix"):
                table.add_column(column, overflow="fold")
            for check in checks:
                status = check.status.value + (" (required)" if check.required else "")
                table.add_row(check.component, f"[{STYLE[check.status.value]}]{status}[/]",
                              escape(check.detail), escape(check.fix or ""))
            print_table(out, table)
            if broken:
                out.print(f"[bold red]{len(broken)} required component(s) missing[/]: "
                          + ", ".join(c.component for c in broken))
            else:
                out.print("[green]everything `refig demo` needs is here[/]")
        if broken:
            raise typer.Exit(1)
