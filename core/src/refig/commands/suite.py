"""``refig suite``: build suites with the registered builders and validate them (the plugin
refig-reporter-terminal adds ``refig suite info``, which describes one)."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.markup import escape
from rich.table import Table
from typer.core import TyperGroup

from refig.console import err, out, print_table
from refig.errors import RefigError, UsageError, did_you_mean
from refig.plugins import Registry
from refig.records import PluginKind, SuiteRecord

if TYPE_CHECKING:  # typer vendors click (typer._click); only annotations use it here
    from typer._click import Command, Context


class _BuilderGroup(TyperGroup):
    """``refig suite build NAME``: an unknown NAME exits 2 and lists the builders."""

    def resolve_command(
        self, ctx: Context, args: list[str]
    ) -> tuple[str | None, Command | None, list[str]]:
        name = args[0] if args else None
        if name is not None and not name.startswith("-") and self.get_command(ctx, name) is None:
            builders = sorted(n for n, c in self.commands.items() if not c.hidden)
            raise UsageError(
                f"unknown suite builder {name!r}{did_you_mean(name, builders)}; "
                f"builders: {', '.join(builders) or 'none'}",
                fix="`refig list-plugins --kind suite` shows what provides them",
            )
        return super().resolve_command(ctx, args)


def _builder(record: SuiteRecord) -> Callable[..., Any]:
    """The record's command, followed by a one-line summary of the suite it built."""
    command = record.command

    @functools.wraps(command)
    def build(*args: Any, **kwargs: Any) -> Any:
        from refig.suite import Suite

        result = command(*args, **kwargs)
        root = result if isinstance(result, str | Path) else getattr(result, "root", None)
        if isinstance(root, str | Path):
            suite = Suite.load(root)
            err.print(
                f"[green]built[/] suite [bold]{suite.manifest.name}[/] with "
                f"{len(suite.tasks)} tasks in {root}; check it with "
                f"`refig suite validate {root}`"
            )
        return result

    return build


def _validate(root: Path, as_json: bool, quiet: bool, max_pixels: int | None) -> None:
    from refig.console import track
    from refig.suite import TASKS_FILE, check_suite

    if not root.is_dir():
        raise RefigError(f"{root} is not a directory", path=root,
                         fix="pass the folder that holds suite.json")
    lines = (root / TASKS_FILE).read_bytes().count(b"\n") if (root / TASKS_FILE).is_file() else 0
    with track("validating", lines, quiet=quiet or as_json) as tracker:
        check = check_suite(root, max_pixels=max_pixels, on_task=lambda _: tracker.finish())
    if as_json:
        typer.echo(json.dumps({
            "root": str(root), "ok": check.ok, "tasks": check.tasks, "files": check.files,
            "images": check.images,
            "problems": [vars(p) for p in check.problems],
        }, indent=2))
    else:
        if check.problems:
            table = Table(title=f"problems in {root}", title_justify="left")
            for column in ("severity", "where", "problem"):
                table.add_column(column, overflow="fold")
            for p in check.problems:
                style = "bold red" if p.severity == "error" else "yellow"
                table.add_row(f"[{style}]{p.severity}[/]", escape(p.where), escape(p.message))
            print_table(out, table)
        verdict = "[green]valid[/]" if check.ok else f"[bold red]{len(check.errors)} error(s)[/]"
        out.print(f"{root}: {verdict}; {check.tasks} tasks, {check.files} files hashed, "
                  f"{check.images} images decoded")
    if not check.ok:
        raise typer.Exit(1)


def register(app: typer.Typer, registry: Registry) -> None:
    suite_app = typer.Typer(help="Build, validate and describe suites.", no_args_is_help=True)
    build_app = typer.Typer(cls=_BuilderGroup, no_args_is_help=True,
                            help="Build a suite with one of the registered builders.")
    for record in registry.records(PluginKind.SUITE):
        assert isinstance(record, SuiteRecord)
        command = _builder(record)
        build_app.command(record.name, help=record.description)(command)
        for alias in record.aliases:
            build_app.command(alias, help=record.description, hidden=True)(command)
    suite_app.add_typer(build_app, name="build")

    @suite_app.command("validate")
    def validate(
        root: Path = typer.Argument(..., help="The suite directory."),
        as_json: bool = typer.Option(False, "--json", help="Print a JSON report."),
        quiet: bool = typer.Option(False, "-q", "--quiet", help="No progress bar."),
        max_pixels: int | None = typer.Option(
            None, "--max-pixels", min=1,
            help="Largest image accepted (default 64,000,000 pixels).",
        ),
    ) -> None:
        """Check schema, hashes, paths and that every image decodes; exit 1 on problems."""
        _validate(root, as_json, quiet, max_pixels)

    app.add_typer(suite_app, name="suite")
