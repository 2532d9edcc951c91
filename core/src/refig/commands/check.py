"""``refig check FILE...``: the gate, structure, rendering and metrics of loose files.

The files go through the same :class:`~refig.engine.engine.Engine` as ``refig evaluate``, over a
:class:`~refig.engine.files.FileSource`; ``--family`` picks whose rules apply (else the family
whose suffixes the files have): its gate, its structure and check row, its realiser, its metrics.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import typer

from refig.console import err, out, print_table
from refig.errors import RefigError, UsageError, refuse_file_as_folder
from refig.plugins import Registry
from refig.records import PluginKind, TaskFamilyRecord

if TYPE_CHECKING:
    from refig.engine.files import FileSource
    from refig.models import Task
    from refig.plugins import Selection
    from refig.protocols import TaskFamily


def unreadable(
    files: list[str], reports: list[dict[str, Any]], family: TaskFamily
) -> list[tuple[str, str]]:
    """The inputs that could not be read as artifacts, with why: not there, a directory, empty,
    unreadable, or refused by the family's gate as not its kind of file (a .txt, a PNG renamed
    .pptx). A failed gate on a file that was read (two slides, a render timeout) is a result."""
    reasons = family.unreadable_reasons
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


def reports_of(source: FileSource, family: TaskFamily, *, pages: bool) -> list[dict[str, Any]]:
    """The documented ``--json`` object of each file, in the order given: the family's fields
    inside core's; ``pages``: with the paths the rendered pages were written to."""
    from refig.protocols import CHECK_ROW_KEYS

    rows = []
    for name, sha, key in zip(source.files, source.shas, source.keys, strict=True):
        artifact = source.artifact_of(key)
        if artifact is None:
            raise RefigError(f"{name} could not be inspected (the error is shown above)",
                             path=Path(name))
        metrics: dict[str, dict[str, float | None]] = {}
        for value in source.kept_values.get(key, []):
            metrics.setdefault(value.metric, {})[value.name] = value.value
        gate = artifact.gate
        render = source.kept_renders.get(key)
        first = render.first if render is not None else None
        rendering: dict[str, object] | None = None if render is None else {
            "png_sha256": render.png_sha256,
            "width": first.width_px if first else None,
            "height": first.height_px if first else None,
            "seconds": round(render.seconds, 3),
            "renderer": render.renderer,
            "error": render.error.message if render.error else None,
        }
        if rendering is not None and pages:
            rendering["files"] = [str(page) for page in artifact.pages]
        # core's keys win: a file given twice under two names keeps its own name
        own = {k: v for k, v in family.check_row(artifact).items() if k not in CHECK_ROW_KEYS}
        rows.append({
            "file": name,
            "sha256": sha,
            "gate": {"passed": gate.passed, "reason": gate.reason, "detail": gate.detail},
            **own,
            "metrics": metrics,
            "render": rendering,
        })
    return rows


class Checked(NamedTuple):
    """What :func:`check_files` found: one report per file, and the given inputs (by path) a
    metric could not read, with its reason (a ``--source`` that is no image)."""

    reports: list[dict[str, Any]]
    unread_inputs: list[tuple[Path, str]]


def unread_inputs(source: FileSource, task: Task | None) -> list[tuple[Path, str]]:
    """Each input file of ``task`` that a metric's empty value blames by path, with the first
    such reason: the metric read the file and could not make sense of it."""
    given = [Path(asset.path) for asset in task.inputs.values()] if task else []
    found: dict[Path, str] = {}
    for values in source.kept_values.values():
        for value in values:
            reason = str(value.detail.get("reason", "")) if value.value is None else ""
            for path in given:
                if reason and str(path) in reason:
                    found.setdefault(path, f"{value.metric}: {reason}")
    return list(found.items())


def check_files(
    files: list[str],
    *,
    family: str,
    task: Task | None = None,
    renderer: Selection,
    metrics: list[Selection],
    executor: Selection,
    jobs: int,
    quiet: bool,
    pages: Path | None = None,
) -> Checked:
    """Gate, structure, rendering and metrics of each file (a shared warm renderer); one report
    each. ``pages``: the folder the rendered pages are kept in (else they are dropped)."""
    import tempfile

    from refig.engine.engine import Engine
    from refig.engine.files import FileSource
    from refig.engine.plugins import close_plugins, family_for

    pool = executor.create()
    try:
        with tempfile.TemporaryDirectory(prefix="refig-check-") as tmp:
            folder = pages or Path(tmp)
            folder.mkdir(parents=True, exist_ok=True)
            source = FileSource(family, files, folder, task)
            Engine(renderer, metrics, pool, jobs=jobs, quiet=quiet).run(source)
            return Checked(reports_of(source, family_for(family), pages=pages is not None),
                           unread_inputs(source, task))
    finally:
        close_plugins()
        pool.close()


def _table(reports: list[dict[str, Any]], family: TaskFamily, *, told: set[str]) -> None:
    """The verdicts as a table, then each failed gate's detail, except for the files in
    ``told``, whose error is printed on stderr (said once, not twice)."""
    from rich.table import Table

    rows = [family.check_cells(report) for report in reports]
    columns = list(dict.fromkeys(column for row in rows for column in row))
    table = Table(title="refig check", title_justify="left")
    table.add_column("file", overflow="fold", min_width=18)
    table.add_column("gate", no_wrap=True)
    for column in columns:
        table.add_column(column, justify="right", no_wrap=True)
    for report, cells in zip(reports, rows, strict=True):
        gate = report["gate"]
        verdict = "[green]pass[/]" if gate["passed"] else f"[red]{gate['reason']}[/]"
        table.add_row(Path(report["file"]).name, verdict,
                      *(cells.get(column, "-") for column in columns))
    print_table(out, table)
    for report in reports:
        if not report["gate"]["passed"] and report["gate"]["detail"] and report["file"] not in told:
            out.print(f"[dim]{report['file']}: {report['gate']['detail']}[/]", soft_wrap=True)


def _families(registry: Registry) -> list[TaskFamilyRecord]:
    return [r for r in registry.records(PluginKind.FAMILY) if isinstance(r, TaskFamilyRecord)]


def family_of(registry: Registry, files: Sequence[str]) -> TaskFamilyRecord:
    """The family whose artifacts the files are by their suffixes, when ``--family`` is not
    given: the one installed family claiming them (files of no family's suffix do not count);
    none or several is a usage error asking for ``--family``."""
    families = _families(registry)
    owners = sorted({record.name for record in families for name in files
                     if record.claims_suffixes
                     and Path(name).suffix.lower() in record.file_suffixes})
    installed = ", ".join(sorted(record.name for record in families))
    if len(owners) == 1:
        return next(record for record in families if record.name == owners[0])
    if owners:
        raise UsageError(f"the files could be artifacts of {' or '.join(owners)}",
                         fix=f"name their family with --family ({', '.join(owners)})")
    raise UsageError("no installed task family takes these files by their suffix",
                     fix=f"name their family with --family ({installed or 'none installed'})")


def check_suffixes(registry: Registry, record: TaskFamilyRecord, files: Sequence[str]) -> None:
    """Refuse a file whose suffix says it belongs to another installed family (``figure.py``
    given to a slide family), naming that family, instead of gating it by the wrong rules."""
    if not record.file_suffixes:
        return
    for name in files:
        suffix = Path(name).suffix.lower()
        if not suffix or suffix in record.file_suffixes:
            continue
        owners = sorted(f.name for f in _families(registry) if suffix in f.file_suffixes)
        if owners:
            raise UsageError(
                f"{name} is a {suffix} file, an artifact of {' or '.join(owners)}, "
                f"not of {record.name}",
                fix=f"check it with --family {owners[0]}: refig check --family {owners[0]} "
                f"{name}",
            )


def check_inputs(record: TaskFamilyRecord, source: Path | None,
                 pairs: Sequence[str]) -> dict[str, Path]:
    """``--source`` (the family's first visible input) and ``--input ROLE=PATH``, by role."""
    from fnmatch import fnmatchcase

    roles = [spec.role for spec in record.inputs]
    inputs: dict[str, Path] = {}
    if source is not None:
        if record.source_role is None:
            raise UsageError(f"--source: the {record.name} family has no source input",
                             fix=f"give its inputs with --input ROLE=PATH ({', '.join(roles)})")
        inputs[record.source_role] = source
    for pair in pairs:
        role, sep, given = pair.partition("=")
        if not sep or not role or not given:
            raise UsageError(f"--input {pair!r} is not ROLE=PATH",
                             fix=f"the {record.name} family's roles: {', '.join(roles)}")
        if not any(fnmatchcase(role, pattern) for pattern in roles):
            raise UsageError(f"--input {role}: the {record.name} family has no such input",
                             fix=f"its roles: {', '.join(roles)}")
        inputs[role] = Path(given)
    for role, path in inputs.items():
        if not path.is_file():
            option = "--source" if path == source else f"--input {role}"
            what = "is a folder, not a file" if path.is_dir() else "does not exist"
            raise UsageError(f"{option}: {path} {what}", path=path,
                             fix="give a file that exists, or leave the option out")
    return inputs


def register(app: typer.Typer, registry: Registry) -> None:
    installed = _families(registry)
    families = ", ".join(f"{record.name} ({', '.join(sorted(record.file_suffixes)) or 'any file'})"
                         for record in installed)
    sources = "; ".join(f"{record.name}: {record.source_role}" for record in installed
                        if record.source_role is not None)
    roles = "; ".join(f"{record.name}: {', '.join(spec.role for spec in record.inputs)}"
                      for record in installed)

    @app.command("check")
    def check(
        files: list[str] = typer.Argument(..., help="The files to check (the family's kind)."),
        family_name: str | None = typer.Option(
            None, "--family", "-f",
            help=f"Whose rules apply: {families}; see `refig list-plugins --kind family`. "
            "Default: the family whose suffix the files have."),
        source: Path | None = typer.Option(
            None, "--source",
            help=f"The task's source, its family's first visible input ({sources}), for the "
            "metrics that compare against it."),
        inputs: list[str] = typer.Option(
            [], "--input", help="A task input by role, ROLE=PATH (repeatable); the families' "
            f"roles: {roles}."),
        as_json: bool = typer.Option(False, "--json", help="Print a JSON list, one per file."),
        metric: list[str] = typer.Option(
            [], "--metric", "-m",
            help="Run only these metrics (repeatable); default: the installed metrics marked "
            "default and the family's own."),
        renderer: str | None = typer.Option(
            None, "--renderer", help="The renderer (default: the family's)."),
        pages: Path | None = typer.Option(
            None, "--pages", help="Keep the rendered pages in this folder (their paths are in "
            "the --json rows as render.files)."),
        executor: str = typer.Option("local", "--executor", help="Where the work runs."),
        jobs: int = typer.Option(
            default_jobs(), "--jobs", "-j", min=1,
            help="Work items at once (when rendering: LibreOffice processes)."),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress output."),
    ) -> None:
        """The gate, structure, rendering and metrics of loose files, by a family's rules.

        Each file gets a verdict: passed, or the family's typed reason (a deck of two slides
        given to a one-slide family: multiple_slides; a program that does not parse:
        syntax_error; each family's documentation lists its reasons).
        Exit codes, as a linter's: 0 every file was read (a failed gate is a result), 1 some
        input could not be read (each is named on stderr and still gets its row), 2 usage.
        See evaluation.md in refig's documentation.
        """
        from refig.engine.files import check_task
        from refig.engine.plugins import family_for, use_registry
        from refig.evaluation import StageChoice

        record = (registry.family(family_name).record if family_name is not None
                  else family_of(registry, files))
        assert isinstance(record, TaskFamilyRecord)
        selected_renderer, selected_metrics = StageChoice.named(
            registry, renderer, metric).serving(registry, record)
        selected_executor = registry.resolve(PluginKind.EXECUTOR, executor)
        given = check_inputs(record, source, inputs)
        check_suffixes(registry, record, files)
        if pages is not None:
            refuse_file_as_folder(pages, f"--pages {pages}")
            try:
                pages.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise UsageError(f"--pages {pages}: cannot write the pages there: "
                                 f"{exc.strerror or exc}", path=pages,
                                 fix="give a folder that can be made or written") from exc
        visible = {spec.role: spec.visible for spec in record.inputs}
        use_registry(registry)
        reports, unread = check_files(
            files,
            family=record.name,
            task=check_task(record.name, given, visible),
            renderer=selected_renderer,
            metrics=selected_metrics,
            executor=selected_executor,
            jobs=jobs,
            quiet=quiet,
            pages=pages,
        )
        family = family_for(record.name)
        problems = unreadable(files, reports, family)
        problems += [(str(path), why) for path, why in unread]
        if as_json:
            typer.echo(json.dumps(reports, indent=2))
        else:
            _table(reports, family, told={name for name, _ in problems})
            if pages is not None:
                out.print(f"rendered pages kept in {pages}", soft_wrap=True, highlight=False)
        for name, why in problems:
            err.print(f"[red]error:[/] {name}: {why}", soft_wrap=True, highlight=False)
        if problems:
            raise typer.Exit(1)
