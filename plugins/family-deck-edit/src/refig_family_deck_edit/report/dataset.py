"""The suite's own statistics, as PPTArena describes its cases (its Tables 2 and 3): cases, decks,
slides per deck, requested changes and slides touched per edit; cases by category, edit type and
operation. Read from the run: the tasks' metadata, the original decks in the run's objects and
the ``deck-diff`` values ``refig evaluate`` stored."""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from refig_toolkit_analysis import Column, Table

from refig_family_deck_edit.cases import DECK
from refig_family_deck_edit.metric import METRIC
from refig_family_deck_edit.report.cases import oracle_configs

#: The kinds of task label Table 3 counts, by task meta key.
KINDS = (("category", "categories"), ("edit type", "edit_type"), ("operation", "operations"))


@dataclass(frozen=True)
class Spread:
    """Total, mean, median, min and max of some counts, and how many were counted of how many."""

    total: float
    mean: float
    median: float
    low: float
    high: float
    counted: int
    of: int


def spread(values: Sequence[float], of: int) -> Spread:
    """The spread of ``values`` (NaN for an empty list), counted out of ``of``."""
    if not values:
        return Spread(0, math.nan, math.nan, math.nan, math.nan, 0, of)
    return Spread(sum(values), statistics.fmean(values), statistics.median(values),
                  min(values), max(values), len(values), of)


def deck_slides(path: Path) -> int | None:
    """Slides listed in a deck (hidden ones included), or None when it cannot be read."""
    from refig_family_deck_edit.reader import Package, PackageError

    try:
        with Package.open(path) as package:
            return len(package.slides())
    except (PackageError, OSError, ValueError):
        return None


def _labels(value: Any) -> list[str]:
    values = value if isinstance(value, list | tuple) else [value] if value else []
    return [str(v) for v in values]


def label_counts(tasks: Iterable[Any], key: str) -> dict[str, tuple[int, int]]:
    """``label -> (cases, hard cases)`` for one meta key (a multi-label case under each)."""
    found: dict[str, tuple[int, int]] = {}
    for task in tasks:
        for name in set(_labels(task.meta.get(key))):
            cases, hard = found.get(name, (0, 0))
            found[name] = (cases + 1, hard + bool(task.meta.get("hard")))
    return found


def _value(outcome: Any, name: str) -> Any:
    return outcome.values.get((METRIC, name))


def per_case(data: Any, name: str, configs: set[str] | None = None) -> dict[str, float]:
    """A ``deck-diff`` value per task, from the first evaluated outcome (of ``configs``) that
    measured it."""
    found: dict[str, float] = {}
    for (task, config), outcome in sorted(data.outcomes.items()):
        value = _value(outcome, name)
        if (task not in found and value is not None and value.value is not None
                and (configs is None or config in configs)):
            found[task] = float(value.value)
    return found


def _row(name: str, s: Spread, unit: str) -> dict[str, Any]:
    def finite(v: float) -> float | None:
        return v if math.isfinite(v) else None

    return {"statistic": name, "total": s.total if s.counted else None, "mean": finite(s.mean),
            "median": finite(s.median), "min": finite(s.low), "max": finite(s.high),
            "counted": f"{s.counted} / {s.of} {unit}"}


def statistics_table(ctx: Any) -> Table:
    """Table 2: what the suite's cases are, from the tasks and the run's records."""
    data = ctx.data
    tasks = [data.tasks[t] for t in data.task_order if t in data.tasks]
    table = Table(key="deck-dataset", title="Dataset statistics (as PPTArena Table 2)", columns=[
        Column("statistic", "statistic"), Column("total", "total", "float", 0),
        Column("mean", "mean", "float", 2), Column("median", "median", "float", 1),
        Column("min", "min", "float", 0), Column("max", "max", "float", 0),
        Column("counted", "counted")],
        description="Counts over the run's tasks; slides per deck over the distinct original "
        "decks (hidden slides included); requested changes are the structural diff of original "
        "against target; slides touched per edit are the oracle's VQ selection (the slides "
        "where the target differs from the original by SSIM or the structural diff).")
    if not tasks:
        table.insufficient = "the run holds no tasks"
        return table
    n = len(tasks)
    decks = {t.inputs[DECK].sha256 for t in tasks if DECK in t.inputs}
    slides = {sha: deck_slides(data.store.objects.path(sha)) for sha in sorted(decks)}
    read = [float(v) for v in slides.values() if v is not None]
    categories = [float(len(set(_labels(t.meta.get("categories"))))) for t in tasks]
    requested = per_case(data, "requested")
    oracles = oracle_configs(data)
    touched = per_case(data, "selected_slides", oracles)
    table.rows = [
        {"statistic": "cases", "total": n, "counted": f"{n} / {n} cases"},
        {"statistic": "hard-subset cases", "total": sum(bool(t.meta.get("hard")) for t in tasks)},
        {"statistic": "original decks (distinct)", "total": len(decks)},
        _row("slides per deck", spread(read, len(decks)), "decks"),
        _row("categories per case", spread(categories, n), "cases"),
        _row("requested changes per case", spread(list(requested.values()), n), "cases"),
        _row("slides touched per edit", spread(list(touched.values()), n), "cases")]
    if len(read) < len(decks):
        table.notes.append(f"{len(decks) - len(read)} original deck(s) could not be read from "
                           "the run's objects")
    if len(requested) < n:
        table.notes.append("requested changes need the deck-diff metric: `refig evaluate RUN`")
    if not oracles:
        table.notes.append("slides touched per edit need the oracle's selection: run "
                           "`--harness oracle` and `refig evaluate RUN`")
    return table


def types_table(ctx: Any) -> Table:
    """Table 3: cases by category, edit type and operation (the hard subset's beside)."""
    data = ctx.data
    tasks = [data.tasks[t] for t in data.task_order if t in data.tasks]
    table = Table(key="deck-dataset-types",
                  title="Cases by category, edit type and operation (as PPTArena Table 3)",
                  columns=[Column("kind", "kind"), Column("label", "label"),
                           Column("cases", "cases", "int"), Column("share", "share", "pct", 1),
                           Column("hard", "hard subset", "int")],
                  description="A case with several labels counts under each, so the shares of "
                  "one kind can add up to more than 100%.")
    if not tasks:
        table.insufficient = "the run holds no tasks"
        return table
    for kind, key in KINDS:
        for name, (cases, hard) in sorted(label_counts(tasks, key).items()):
            table.rows.append({"kind": kind, "label": name, "cases": cases,
                               "share": cases / len(tasks), "hard": hard})
    if not table.rows:
        table.insufficient = "no task names a category, edit type or operation"
    return table


def dataset_tables(ctx: Any) -> Iterator[Table]:
    yield statistics_table(ctx)
    yield types_table(ctx)
