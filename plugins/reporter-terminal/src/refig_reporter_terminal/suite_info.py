"""``refig suite info``: a suite's inputs by role and its source images' statistics (sizes,
megapixels, aspect ratios, file sizes, by field), as tables or JSON, with an optional plot."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer
from refig.plugin import RefigError, Suite, install_fix, out, print_table
from rich.table import Table


def register(app: typer.Typer) -> None:
    """Add ``info`` to core's ``refig suite`` group."""
    suite_app = next(group.typer_instance for group in app.registered_groups
                     if group.name == "suite")
    assert suite_app is not None

    @suite_app.command("info")
    def info(
        root: Path = typer.Argument(..., help="The suite directory."),
        plot: Path | None = typer.Option(None, "--plot", help="Also write a PNG/PDF/SVG plot."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
    ) -> None:
        """Image statistics: count, resolutions, megapixels, aspect ratios, sizes, by field."""
        _info(root, plot, as_json)


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
    from refig_toolkit_analysis import suite_stats

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
                fix=install_fix("refig-toolkit-analysis[plot]"),
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
