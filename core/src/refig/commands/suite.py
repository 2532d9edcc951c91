"""``refig suite``: build suites with the registered builders, validate and describe them."""

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
from refig.errors import RefigError, UsageError, did_you_mean, install_fix
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


def spread(q: dict[str, float], fmt: str, scale: float = 1.0) -> str:
    """A quantile summary as ``median (min–max)``."""
    return f"{q['median'] / scale:{fmt}} ({q['min'] / scale:{fmt}}–{q['max'] / scale:{fmt}})"


def _stat_row(label: str, summary: dict[str, Any]) -> list[str]:
    if not summary.get("count"):
        return [label, "0", "", "", "", "", ""]
    return [
        label,
        str(summary["count"]),
        str(summary["distinct_resolutions"]),
        f"{summary['width']['min']:.0f}–{summary['width']['max']:.0f}",
        spread(summary["megapixels"], ".2f"),
        spread(summary["aspect"], ".2f"),
        spread(summary["bytes"], ".0f", 1024),
    ]


def _info(root: Path, plot: Path | None, as_json: bool) -> None:
    from refig import suite_stats
    from refig.suite import Suite

    suite = Suite.load(root)
    stats = suite_stats.collect(suite)
    report = suite_stats.describe(stats)
    inputs = suite_stats.inputs_by_role(suite)
    manifest = suite.manifest
    if plot is not None:
        if not stats:
            raise RefigError("the suite has no image sources to plot", path=root)
        try:
            suite_stats.plot(stats, plot, f"{manifest.name} v{manifest.version}")
        except ImportError as exc:
            raise RefigError(
                "--plot needs matplotlib, which is not installed",
                fix=install_fix("refig-core[plot]"),
            ) from exc
        except (ValueError, OSError) as exc:  # an unknown format, or a folder not writable
            raise RefigError(f"cannot write the plot: {exc}", path=plot,
                             fix="give a writable path ending in .png, .pdf or .svg") from exc
    if as_json:
        payload = {"name": manifest.name, "version": manifest.version, "family": manifest.family,
                   "builder": manifest.builder, "tasks": len(suite.tasks), "inputs": inputs,
                   **report}
        if plot is not None:
            payload["plot"] = str(plot)
        typer.echo(json.dumps(payload, indent=2))
        return
    out.print(f"[bold]{manifest.name}[/] v{manifest.version} ({manifest.family}), built by "
              f"{manifest.builder} at {manifest.created_at:%Y-%m-%d %H:%M} UTC; "
              f"{len(suite.tasks)} tasks, "
              f"{sum(1 for t in suite.tasks if t.input('annotation'))} annotated")
    roles = Table(title="inputs by role", title_justify="left")
    for column in ("role", "tasks", "seen by the agent", "KiB"):
        roles.add_column(column, justify="left" if column == "role" else "right")
    for role, summary in inputs.items():
        roles.add_row(role, str(summary["tasks"]), "yes" if summary["visible"] else "no (hidden)",
                      spread(summary["bytes"], ".0f", 1024))
    roles.caption = "median (min–max)"
    print_table(out, roles)
    if not stats:
        out.print(f"no image sources: the inputs of a {manifest.family} suite are not images")
    else:
        table = Table(title="source images", title_justify="left")
        for column in ("field", "images", "sizes", "width px", "megapixels", "aspect", "KiB"):
            table.add_column(column, justify="left" if column == "field" else "right")
        table.add_row(*_stat_row("all", report["all"]))
        for name, summary in report.get("by_field", {}).items():
            table.add_row(*_stat_row(name, summary))
        table.caption = "median (min–max); `--json` adds quartiles and formats"
        print_table(out, table)
    if plot is not None:
        out.print(f"plot written to {plot}")


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

    @suite_app.command("info")
    def info(
        root: Path = typer.Argument(..., help="The suite directory."),
        plot: Path | None = typer.Option(None, "--plot", help="Also write a PNG/PDF/SVG plot."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
    ) -> None:
        """Image statistics: count, resolutions, megapixels, aspect ratios, sizes, by field."""
        _info(root, plot, as_json)

    app.add_typer(suite_app, name="suite")
