"""A published paper's tables and figures as data: what each is made of, so one writer
(``refig report RUN --paper NAME --latex DIR``, the LaTeX reporter) can regenerate them.

A task family declares its papers (``TaskFamily.papers()``); each item names the report
table(s) or the figure it is, and which judging run the paper computed it from. An item refig
does not compute says so (``missing``), and the writer prints it as one it cannot make.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from refig.errors import UsageError

from refig_toolkit_analysis.analysis.report import Analysis, analysis_for
from refig_toolkit_analysis.analysis.tables import Table


@dataclass(frozen=True)
class Part:
    """One report table inside a paper's table: its key, the judging run the paper reads it
    from (None: as the report's options say) and a heading when the paper's table has
    several parts (a column group)."""

    table: str
    judge_run: int | None = None
    heading: str = ""


@dataclass(frozen=True)
class PaperItem:
    """A table or figure of a paper: its file name (``table2``, ``figure4``, or a descriptive
    name where the paper's number is not confirmed), caption, and what it is made of."""

    name: str
    caption: str
    parts: tuple[Part, ...] = ()
    #: A figure of refig-reporter-figures (its stem), drawn from the report's analysis.
    figure: str | None = None
    #: Why refig cannot make it whatever the run holds (not computed by this refig).
    missing: str | None = None
    #: What the run needs for its tables to exist at all (said when the report has none).
    needs: str = ""

    @property
    def kind(self) -> str:
        return "figure" if self.figure is not None else "table"


@dataclass(frozen=True)
class Paper:
    """A paper of a task family: its name for ``--paper``, title and items in paper order."""

    name: str
    title: str
    family: str
    items: tuple[PaperItem, ...]
    notes: tuple[str, ...] = field(default=())


def installed_papers() -> dict[str, Paper]:
    """Every paper the installed task families declare, by name."""
    from refig.engine.plugins import installed_family, installed_records
    from refig.records import PluginKind

    found: dict[str, Paper] = {}
    for record in installed_records(PluginKind.FAMILY):
        family = installed_family(record.name)
        for paper in family.papers() if family is not None else ():
            found[paper.name] = paper
    return found


def paper_for(name: str, family: str | None) -> Paper:
    """The paper ``name`` of the run's ``family``; an unknown name, or a paper of another
    family, exits 2 naming the papers there are."""
    papers = installed_papers()
    known = ", ".join(sorted(papers)) or "none (no installed task family declares a paper)"
    paper = papers.get(name)
    if paper is None:
        raise UsageError(f"no paper {name!r} is declared by an installed task family",
                         fix=f"--paper is one of: {known}")
    if family is not None and paper.family != family:
        own = ", ".join(sorted(p.name for p in papers.values() if p.family == family))
        raise UsageError(
            f"--paper {name} is a {paper.family} paper, and this run is {family}",
            fix=f"give a paper of {family}: {own}" if own else f"{family} declares no paper")
    return paper


def part_options(options: Mapping[str, Any], part: Part) -> dict[str, Any]:
    """The report's options for the analysis ``part`` is read from: one judging run, with the
    paper's rule for its direction-agreement column (every decisive vote kept), when the part
    fixes one; otherwise the options as given."""
    if part.judge_run is None:
        return dict(options)
    return {**options, "judge_run": part.judge_run, "zero_margin": "disagree"}


def analysis_of(run_dir: Path, options: Mapping[str, Any], part: Part) -> Analysis:
    """The analysis ``part`` is read from (each computed once per report: ``analysis_for``
    caches it); a judging run the run does not have is a part it cannot make."""
    if part.judge_run is not None:
        runs = analysis_for(run_dir, options).data.judging_runs
        if part.judge_run > runs:
            raise _NotMade(f"the paper reads judging run {part.judge_run} and the run has "
                           f"{runs}")
    return analysis_for(run_dir, part_options(options, part))


class _NotMade(Exception):
    """A part the run's data cannot make, with the reason."""


@dataclass(frozen=True)
class Made:
    """An item's tables, each with its heading (figures are drawn by the reporter)."""

    item: PaperItem
    tables: tuple[tuple[str, Table], ...] = ()


@dataclass(frozen=True)
class NotMade:
    """An item the run cannot make, and why."""

    item: PaperItem
    reason: str


def tables_of(item: PaperItem, run_dir: Path, options: Mapping[str, Any]) -> Made | NotMade:
    """The tables of a table item, or why the run cannot make it: refig does not compute it,
    the analysis made no such table (with what the table needs) or the table is empty."""
    if item.missing is not None:
        return NotMade(item, f"not computed by this refig ({item.missing})")
    found: list[tuple[str, Table]] = []
    for part in item.parts:
        try:
            analysis = analysis_of(run_dir, options, part)
        except _NotMade as exc:
            return NotMade(item, str(exc))
        table = analysis.table(part.table)
        if table is None:
            needs = f" (it needs {item.needs})" if item.needs else ""
            return NotMade(item, f"the run's report has no {part.table} table{needs}")
        if table.empty:
            return NotMade(item, f"{part.table}: {table.empty_sentence}")
        found.append((part_heading(part, options), table))
    return Made(item, tuple(found))


def part_heading(part: Part, options: Mapping[str, Any]) -> str:
    """The part's heading; a part that reads the report's options under ``--judge-run N``
    holds run N, whatever the paper's column was."""
    run = options.get("judge_run")
    if part.heading and part.judge_run is None and run is not None:
        return f"judging run {run} (--judge-run)"
    return part.heading


def unmade_line(paper: Paper, unmade: list[NotMade]) -> str:
    """The one line saying which items the run cannot make and why."""
    if not unmade:
        return f"{paper.name}: every table and figure written"
    reasons = "; ".join(f"{n.item.name}: {n.reason}" for n in unmade)
    return f"{paper.name}: cannot make {len(unmade)} of {len(paper.items)}: {reasons}"
