"""``refig check FILE...``: the gate, object summary and metrics for loose .pptx files."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from refig.console import err, out, print_table
from refig.errors import UsageError
from refig.plugins import Registry
from refig.records import FIGURE_TO_SLIDE, PluginKind

if TYPE_CHECKING:
    from refig.models import Inspection, MetricValue, Render
    from refig.plugins import Selection
    from refig.protocols import Artifact, TaskFamily

#: Gate reasons that say the input is not a file of the family at all, when a family names none.
UNREADABLE_REASONS = frozenset({"missing"})


def unreadable(
    files: list[str], reports: list[dict[str, Any]], family: TaskFamily
) -> list[tuple[str, str]]:
    """The inputs that could not be read as artifacts, with why: not there, a directory, empty,
    unreadable, or refused by the family's gate as not its kind of file (a .txt, a PNG renamed
    .pptx). A failed gate on a file that was read (two slides, a render timeout) is a result."""
    reasons = getattr(family, "unreadable_reasons", UNREADABLE_REASONS)
    found = []
    for name, report in zip(files, reports, strict=True):
        path = Path(name)
        gate = report["gate"]
        if path.is_dir():
            found.append((name, "is a directory, not a file"))
        elif not path.exists():
            found.append((name, "no such file"))
        elif not os.access(path, os.R_OK):
            found.append((name, "cannot be read (permission denied)"))
        elif path.stat().st_size == 0:
            found.append((name, "is empty"))
        elif not gate["passed"] and gate["reason"] in reasons:
            found.append((name, f"cannot be read: {gate['reason']}: {gate['detail']}".rstrip()))
    return found


def default_jobs() -> int:
    """One work item per core."""
    return max(1, os.cpu_count() or 1)


def file_report(
    file: str,
    sha256: str | None,
    artifact: Artifact,
    family: TaskFamily,
    render: Render | None,
    values: list[MetricValue],
) -> dict[str, Any]:
    """The documented ``--json`` object of one file: the family's fields inside core's."""
    metrics: dict[str, dict[str, float | None]] = {}
    for value in values:
        metrics.setdefault(value.metric, {})[value.name] = value.value
    gate = artifact.gate
    first = render.first if render is not None else None
    return {
        "file": file,
        "sha256": sha256,
        "gate": {"passed": gate.passed, "reason": gate.reason, "detail": gate.detail},
        **family.check_row(artifact),
        "metrics": metrics,
        "render": None
        if render is None
        else {
            "png_sha256": render.png_sha256,
            "width": first.width_px if first else None,
            "height": first.height_px if first else None,
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

    from refig.engine.plugins import close_plugins
    from refig.engine.stages import (
        ComputeMetric,
        Item,
        RenderBatch,
        final_gate,
        inspect_item,
        render_batches,
        run_stage,
    )
    from refig.models import Asset, Task
    from refig.pptx import DEFAULT_LIMITS, ObjectTree
    from refig.protocols import Artifact
    from refig.records import FIGURE_TO_SLIDE
    from refig.store import sha256_file

    family = family_plugin(FIGURE_TO_SLIDE)
    task = None
    if source is not None:
        figure = Asset(path=str(source), sha256=sha256_file(source))
        task = Task(id="check", family=FIGURE_TO_SLIDE, inputs={"figure": figure})
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
            pngs: dict[str, list[Path]] = {}
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
                    for index, png in enumerate(rendered.pngs):
                        pngs.setdefault(sha, []).append(Path(tmp) / f"{sha}-{index}.png")
                        pngs[sha][-1].write_bytes(png)
            gates = {sha: final_gate(i, renders.get(sha)) for sha, i in inspections.items()}
            every = {
                item.sha256: Artifact(
                    path=Path(item.path),
                    sha256=item.sha256,
                    gate=gates[item.sha256],
                    structure=inspections[item.sha256].parsed(ObjectTree),
                    pages=tuple(pngs.get(item.sha256, ())),
                    task=task,
                    references={"figure": source} if source is not None else {},
                )
                for item in unique
            }
            artifacts = [a for a in every.values() if a.structure is not None]
            values: dict[str, list[MetricValue]] = {}
            for selection in metrics:
                if not selection.record.serves(FIGURE_TO_SLIDE):
                    continue  # as in `refig evaluate`: a metric runs on the families it names
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
            _with_metrics(every[item.sha256], values.get(item.sha256, [])),
            family,
            renders.get(item.sha256),
            values.get(item.sha256, []),
        )
        for name, sha, item in zip(files, shas, items, strict=True)
    ]


def _with_metrics(artifact: Artifact, values: list[MetricValue]) -> Artifact:
    """The artifact with the values measured for it, as ``{"metric.name": value}``."""
    import dataclasses

    measured = {f"{v.metric}.{v.name}": v.value for v in values}
    return dataclasses.replace(artifact, metrics={**artifact.metrics, **measured})


def family_plugin(name: str) -> TaskFamily:
    """This process's task family object ``name``."""
    from refig.engine.plugins import family_for

    return family_for(name)


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
        renderer: str | None = typer.Option(
            None, "--renderer", help="The renderer (default: the family's, libreoffice)."
        ),
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
        """Gate, object counts, rendering and metrics for .pptx files.

        Each file gets a verdict: passed, or a reason (missing, not_a_zip, too_large, corrupt,
        no_slides, multiple_slides, render_failed, render_timeout). Exit codes, as a linter's:
        0 every file was read (a failed gate is a result), 1 some input could not be read (a
        missing file, a directory, an empty file, a file that is not a .pptx; each is named on
        stderr and still gets its row), 2 usage. See docs/evaluation.md.
        """
        from refig.engine.plugins import use_registry
        from refig.evaluation import select_metrics

        family = registry.family(FIGURE_TO_SLIDE).record
        selected_renderer = registry.resolve_for(PluginKind.RENDERER, renderer or family.renderer,
                                                 family.name)
        selected_metrics = select_metrics(registry, metric, family.name)
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
        problems = unreadable(files, reports, family_plugin(FIGURE_TO_SLIDE))
        for name, why in problems:
            err.print(f"[red]error:[/] {name}: {why}", soft_wrap=True, highlight=False)
        if problems:
            raise typer.Exit(1)
