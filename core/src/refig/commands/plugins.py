"""``refig list-plugins``: what is installed, what it provides, and what failed."""

from __future__ import annotations

import json

import typer
from rich.markup import escape
from rich.table import Table

from refig.console import out, print_table
from refig.errors import UsageError, did_you_mean
from refig.plugins import Registry
from refig.records import PluginKind

STATUS_STYLE = {"active": "green", "failed": "bold red", "disabled": "dim"}


def register(app: typer.Typer, registry: Registry) -> None:
    @app.command("list-plugins")
    def list_plugins(
        all_: bool = typer.Option(False, "--all", help="Include refig's built-in plugins."),
        as_json: bool = typer.Option(False, "--json", help="Print a JSON list."),
        kind: str | None = typer.Option(
            None, "--kind", help="Only plugins providing this kind (judge, harness, ...)."
        ),
    ) -> None:
        """List installed plugins: distribution, version, status, what each provides."""
        kinds = [k.value for k in PluginKind]
        if kind is not None and kind not in kinds:
            raise UsageError(
                f"unknown kind {kind!r}{did_you_mean(kind, kinds)}; kinds: {', '.join(kinds)}"
            )
        infos = [i for i in registry.plugins if all_ or not i.builtin]
        if kind is not None:
            infos = [i for i in infos if i.may_provide(kind)]
        if as_json:
            typer.echo(json.dumps([i.as_json() for i in infos], indent=2))
            return
        table = Table(title="refig plugins", title_justify="left")
        for column in ("distribution", "version", "status", "provides", "hooks"):
            table.add_column(column, overflow="fold")
        for info in infos:
            style = STATUS_STYLE[info.status]
            provides = "\n".join(sorted(info.provides)) or escape(info.error or "")
            if info.lost:
                provides += "\n[yellow]" + escape("\n".join(info.lost)) + "[/]"
            table.add_row(
                info.name + (" (built-in)" if info.builtin else ""),
                info.version,
                f"[{style}]{info.status}[/]",
                provides,
                "\n".join(info.hooks),
            )
        print_table(out, table)
        if not infos:
            out.print("no plugins installed; `refig list-plugins --all` shows the built-ins")
