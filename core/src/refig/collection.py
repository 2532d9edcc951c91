"""A folder of runs read as one collection: ``refig demo`` writes one run per task family under
its output folder (a run holds one family's suite), and a study keeps its runs side by side.
``refig view DIR`` and ``refig report DIR --html OUT`` show such a folder as one sample list."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from refig.errors import RefigError, UsageError
from refig.store import DB_NAME, RunStore
from refig.store_marks import unreadable_store

if TYPE_CHECKING:
    from refig.pipeline import ReportRequest
    from refig.plugins import Registry

T = TypeVar("T")

#: Folder levels searched below the given folder (the demo's runs are one or two deep).
MAX_DEPTH = 4
#: Directories looked into at most, so a folder such as ``/`` is refused, not walked.
MAX_DIRECTORIES = 20_000


def is_run(path: Path) -> bool:
    """True when ``path`` is a run directory (it holds the run's database)."""
    return (path / DB_NAME).is_file()


def find_runs(folder: Path, *, max_depth: int = MAX_DEPTH) -> list[Path]:
    """Every run directory below ``folder`` (never inside a run, never through a symbolic link
    or a hidden folder), in order of their path relative to ``folder``."""
    found: list[Path] = []
    level = [folder]
    seen = 0
    for _ in range(max_depth):
        below: list[Path] = []
        for directory in level:
            try:
                entries = sorted(os.scandir(directory), key=lambda e: e.name)
            except OSError:
                continue
            for entry in entries:
                if entry.name.startswith(".") or not entry.is_dir(follow_symlinks=False):
                    continue
                seen += 1
                if seen > MAX_DIRECTORIES:
                    raise UsageError(f"{folder} holds more than {MAX_DIRECTORIES:,} folders",
                                     path=folder, fix="give the folder that holds the runs")
                path = Path(entry.path)
                (found if is_run(path) else below).append(path)
        level = below
    return sorted(found, key=lambda p: p.relative_to(folder).as_posix())


def collection_runs(path: Path) -> list[Path] | None:
    """The runs of a folder of runs, or None when ``path`` is itself a run or holds none (the
    caller then opens it as one run and gets that error)."""
    if not path.is_dir() or is_run(path):
        return None
    return find_runs(path) or None


def run_name(folder: Path, run: Path) -> str:
    """How a run of a collection is named in its pages: its path relative to the folder."""
    return run.relative_to(folder).as_posix()


class Unreadable:
    """The runs of a collection that could not be read, and why: one damaged run does not cost
    the others their report. Each is named on stderr as it is found; :meth:`raise_if_any` ends
    the command with exit 1 once the others are reported."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.runs: list[tuple[Path, RefigError]] = []

    def attempt(self, run: Path, read: Callable[[], T]) -> T | None:
        """``read()``, or None when the run cannot be read (a usage error still ends the
        command: it is the same for every run)."""
        from rich.markup import escape

        from refig.console import err

        if any(known == run for known, _ in self.runs):  # named already (by the terminal)
            return None
        try:
            return read()
        except UsageError:
            raise
        except (RefigError, sqlite3.DatabaseError) as exc:
            error = exc if isinstance(exc, RefigError) else unreadable_store(exc)
            self.runs.append((run, error))
            err.print(f"[bold red]error:[/] {escape(run_name(self.folder, run))} is left out: "
                      f"{escape(str(error))}", highlight=False)
            return None

    def raise_if_any(self, total: int) -> None:
        """Exit 1 naming the runs left out, if any."""
        if self.runs:
            names = ", ".join(run_name(self.folder, run) for run, _ in self.runs)
            raise RefigError(f"{len(self.runs)} of {total} runs in {self.folder} could not be "
                             f"read: {names}", path=self.folder,
                             fix="each is named above with its fix; the other runs are reported")


def judges_of(run: Path) -> set[str]:
    """The labels of the judges with judgments in ``run`` (a name, or ``name~key`` when one name
    ran with several settings, as the report labels them), read without loading the run."""
    try:
        with sqlite3.connect(f"file:{run / DB_NAME}?mode=ro", uri=True) as db:
            rows = db.execute("SELECT DISTINCT json_extract(data, '$.judge'), judge_key "
                              "FROM judgments").fetchall()
    except sqlite3.Error:
        return set()
    keys: dict[str, set[str]] = {}
    for name, key in rows:
        keys.setdefault(name, set()).add(key)
    return {name if len(held) == 1 else f"{name}~{key[:6]}"
            for name, held in keys.items() for key in held}


def judge_notice(judge: str, name: str) -> str:
    """What a collection says of a run ``--judge`` did not judge (on stderr and in its pages)."""
    return (f"{name}: judge {judge!r} did not judge this run, so its tables use the run's own "
            "main judge")


def runs_without(folder: Path, runs: Sequence[Path], judge: str | None) -> list[Path]:
    """The runs of a collection ``judge`` did not judge; a usage error (exit 2) when it judged
    none of them, naming each run's judges."""
    if judge is None:
        return []
    missing = [run for run in runs if judge not in judges_of(run)]
    if missing and len(missing) == len(runs):
        held = "; ".join(f"{run_name(folder, r)}: {', '.join(sorted(judges_of(r))) or 'none'}"
                         for r in runs)
        raise UsageError(f"judge {judge!r} judged none of the {len(runs)} runs in {folder}",
                         path=folder, fix=f"choose a judge one of them has ({held})")
    return missing


def report_collection(registry: Registry, request: ReportRequest,
                      runs: list[Path]) -> dict[str, Path]:
    """``refig report DIR`` on a folder of runs: the terminal tables of each run in turn, and
    each ``--html`` (or other collection-aware reporter) written once over the whole folder.
    Reports that hold one run's tables (JSON, LaTeX, figures) need one run. The layer above
    :func:`refig.pipeline.report`, which it calls for each run's tables (never the reverse)."""
    from dataclasses import replace
    from functools import partial

    from refig.console import err
    from refig.pipeline import refuse_deviations, refuse_file_targets, report
    from refig.records import PluginKind

    refuse_file_targets(request)
    if request.as_json:
        raise UsageError(f"{request.run} is a folder of {len(runs)} runs; --json reports one run",
                         fix=f"give one of its runs, e.g. {runs[0]}")
    wanted = [(registry.resolve(PluginKind.REPORTER, name), target)
              for name, target in request.targets]
    for selection, _ in wanted:
        if selection.record.name != "html":
            raise UsageError(
                f"{request.run} is a folder of {len(runs)} runs; the {selection.record.name} "
                "report holds one run's tables", fix=f"give one of its runs, e.g. {runs[0]}")
    unjudged = runs_without(request.run, runs, request.judge)
    unreadable = Unreadable(request.run)
    if request.terminal:
        for run in runs:
            name = run_name(request.run, run)
            if not request.quiet:
                err.rule(f"[bold]{name}[/]", align="left")
            judge = request.judge
            if run in unjudged and judge is not None:
                err.print(judge_notice(judge, name), style="yellow", markup=False,
                          highlight=False)
                judge = None
            unreadable.attempt(run, partial(
                report, registry,
                replace(request, run=run, targets=(), judge=judge, strict=False)))
    options = {"quiet": request.quiet, "judge": request.judge, "resamples": request.resamples,
               "elo_resamples": request.elo_resamples, "seed": request.seed,
               "zero_margin": request.zero_margin, "count_failures": request.count_failures,
               "judge_run": request.judge_run,
               **({"buckets": request.buckets} if request.buckets is not None else {}),
               "unreadable": unreadable}
    written: dict[str, Path] = {}
    for selection, target in wanted:
        path = selection.create().report(request.run, target, options)
        if path is not None:
            written[selection.record.name] = path
            if not request.quiet:
                err.print(f"{selection.record.name} report: {path}")
    unreadable.raise_if_any(len(runs))
    for run in runs if request.strict else ():
        refuse_deviations(RunStore.open(run), request)
    return written
