"""``refig check FILE...``: the gate, object summary and metrics for loose .pptx files."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from refig.console import out, print_table
from refig.errors import UsageError
from refig.plugins import Registry
from refig.records import PluginKind

if TYPE_CHECKING:
    from refig.models import GateResult, Inspection, MetricValue, Render
    from refig.plugins import Selection

#: The metric that supplies ``raster_area_ratio`` and ``flattened`` in ``--json``.
FLATTENING = "flattening"


def default_jobs() -> int:
    """One work item per core."""
    return max(1, os.cpu_count() or 1)


def _flattening(values: list[MetricValue], name: str) -> float | None:
    """The flattening metric's value ``name``; None when that metric did not run."""
    return next((v.value for v in values if v.metric == FLATTENING and v.name == name), None)


def file_report(
    file: str,
    sha256: str | None,
    inspection: Inspection,
    gate: GateResult,
    render: Render | None,
    values: list[MetricValue],
) -> dict[str, Any]:
    """The documented ``--json`` object of one file."""
    metrics: dict[str, dict[str, float | None]] = {}
    for value in values:
        metrics.setdefault(value.metric, {})[value.name] = value.value
    flattened = _flattening(values, "flattened")
    return {
        "file": file,
        "sha256": sha256,
        "gate": {
            "passed": gate.passed,
            "reason": gate.reason.value if gate.reason else None,
            "detail": gate.detail,
        },
        "slides": gate.slides,
        "objects": inspection.tree.counts() if inspection.tree is not None else None,
        "raster_area_ratio": _flattening(values, "raster_area_ratio"),
        "flattened": None if flattened is None else bool(flattened),
        "metrics": metrics,
        "render": None
        if render is None
        else {
            "png_sha256": render.png_sha256,
            "width": render.width_px,
            "height": render.height_px,
            "seconds": round(render.seconds, 3),
            "renderer": render.renderer,
            "error": render.error.message if render.error else None,
        },
    }


def check_files(
    files: list[str],
    *,
    source: Path | None,
    renderer: Selection,
    metrics: list[Selection],
    executor: Selection,
    jobs: int,
    quiet: bool,
) -> list[dict[str, Any]]:
    """Gate, tree, rendering and metrics of each file (shared warm renderer); one report each."""
    import tempfile

    from refig.evaluation import (
        ComputeMetric,
        Item,
        RenderBatch,
        close_plugins,
        final_gate,
        inspect_item,
        render_batches,
        run_stage,
    )
    from refig.models import Task
    from refig.ooxml import DEFAULT_LIMITS
    from refig.protocols import Artifact
    from refig.records import TaskKind
    from refig.store import sha256_file

    task = None
    if source is not None:
        task = Task(
            id="check",
            kind=TaskKind.FIGURE_TO_SLIDE,
            source=str(source),
            source_sha256=sha256_file(source),
        )
    items: list[Item] = []
    shas: list[str | None] = []
    for index, name in enumerate(files):
        path = Path(name)
        sha = None
        with contextlib.suppress(OSError):  # unreadable: the gate names the cause
            if path.is_file() and path.stat().st_size <= DEFAULT_LIMITS.max_file_bytes:
                sha = sha256_file(path)
        shas.append(sha)
        items.append(Item(sha or f"unhashed-{index}", str(path)))
    unique = list({item.sha256: item for item in items}.values())
    inspections: dict[str, Inspection] = {}
    pool = executor.create()
    try:
        for item, result in run_stage(
            "inspect", pool, inspect_item, unique, jobs=jobs, quiet=quiet
        ):
            if isinstance(result, BaseException):
                raise result
            inspections[item.sha256] = result
        with tempfile.TemporaryDirectory(prefix="refig-check-") as tmp:
            passing = [i for i in unique if inspections[i.sha256].gate.passed]
            renders: dict[str, Render] = {}
            pngs: dict[str, Path] = {}
            for _, result in run_stage(
                "render",
                pool,
                RenderBatch(renderer.record.name),
                render_batches(passing, jobs),
                jobs=jobs,
                quiet=quiet,
                weight=len,
            ):
                if isinstance(result, BaseException):
                    raise result
                for rendered in result:
                    sha = rendered.render.artifact_sha256
                    renders[sha] = rendered.render
                    if rendered.png is not None:
                        pngs[sha] = Path(tmp) / f"{sha}.png"
                        pngs[sha].write_bytes(rendered.png)
            gates = {sha: final_gate(i, renders.get(sha)) for sha, i in inspections.items()}
            artifacts = [
                Artifact(
                    path=Path(item.path),
                    sha256=item.sha256,
                    gate=gates[item.sha256],
                    tree=inspections[item.sha256].tree,
                    render=pngs.get(item.sha256),
                    task=task,
                    source=source,
                )
                for item in unique
                if inspections[item.sha256].tree is not None
            ]
            values: dict[str, list[MetricValue]] = {}
            for selection in metrics:
                if task is not None and not selection.record.applies_to(task.kind):
                    continue  # as in `refig evaluate`: a metric runs on the task kinds it names
                name = selection.record.name
                for artifact, result in run_stage(
                    f"metric {name}", pool, ComputeMetric(name), artifacts, jobs=jobs, quiet=quiet
                ):
                    if isinstance(result, BaseException):
                        continue  # reported by run_stage; the file keeps its other metrics
                    values.setdefault(artifact.sha256, []).extend(result)
    finally:
        close_plugins()
        pool.close()
    return [
        file_report(
            name,
            sha,
            inspections[item.sha256],
            gates[item.sha256],
            renders.get(item.sha256),
            values.get(item.sha256, []),
        )
        for name, sha, item in zip(files, shas, items, strict=True)
    ]


def _table(reports: list[dict[str, Any]]) -> None:
    from rich.table import Table

    table = Table(title="refig check", title_justify="left")
    table.add_column("file", overflow="fold", min_width=18)
    table.add_column("gate", no_wrap=True)
    for column in ("slides", "text", "shapes", "conn", "pics", "flat"):
        table.add_column(column, justify="right", no_wrap=True)
    for report in reports:
        gate = report["gate"]
        verdict = "[green]pass[/]" if gate["passed"] else f"[red]{gate['reason']}[/]"
        counts = report["objects"]
        flattened = report["flattened"]
        cells = ["-"] * 4
        if counts:
            cells = [
                str(counts["text_boxes"]),
                str(counts["auto_shapes"] + counts["freeforms"]),
                f"{counts['connectors']}/{counts['bound_connectors']}b",
                str(counts["pictures"]),
            ]
        table.add_row(
            Path(report["file"]).name,
            verdict,
            "-" if report["slides"] is None else str(report["slides"]),
            *cells,
            "-" if flattened is None else ("[red]yes[/]" if flattened else "no"),
        )
    print_table(out, table)
    for report in reports:
        if not report["gate"]["passed"] and report["gate"]["detail"]:
            out.print(f"[dim]{report['file']}: {report['gate']['detail']}[/]", soft_wrap=True)


def register(app: typer.Typer, registry: Registry) -> None:
    @app.command("check")
    def check(
        files: list[str] = typer.Argument(..., help="The .pptx files to check."),
        source: Path | None = typer.Option(
            None, "--source", help="The source figure, for the metrics that compare against it."
        ),
        as_json: bool = typer.Option(False, "--json", help="Print a JSON list, one per file."),
        metric: list[str] = typer.Option(
            [],
            "--metric",
            "-m",
            help="Run only these metrics (repeatable); default: the "
            "installed metrics marked default.",
        ),
        renderer: str = typer.Option("libreoffice", "--renderer", help="The renderer to use."),
        executor: str = typer.Option("local", "--executor", help="Where the work runs."),
        jobs: int = typer.Option(
            default_jobs(),
            "--jobs",
            "-j",
            min=1,
            help="Work items at once (when rendering: LibreOffice processes).",
        ),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress output."),
    ) -> None:
        """Gate, object counts, rendering and metrics for .pptx files (exit 0 when checked).

        Each file gets a verdict: passed, or a reason (missing, not_a_zip, too_large, corrupt,
        no_slides, multiple_slides, render_failed, render_timeout). See docs/evaluation.md.
        """
        from refig.evaluation import select_metrics, use_registry

        selected_renderer = registry.resolve(PluginKind.RENDERER, renderer)
        selected_metrics = select_metrics(registry, metric)
        selected_executor = registry.resolve(PluginKind.EXECUTOR, executor)
        if source is not None and not source.is_file():
            raise UsageError(
                f"source figure {source} does not exist",
                path=source,
                fix="pass the figure the slides rebuild with --source, or leave it out",
            )
        use_registry(registry)
        reports = check_files(
            files,
            source=source,
            renderer=selected_renderer,
            metrics=selected_metrics,
            executor=selected_executor,
            jobs=jobs,
            quiet=quiet,
        )
        if as_json:
            typer.echo(json.dumps(reports, indent=2))
        else:
            _table(reports)
