"""Scores by field: each configuration's mean total over the tasks of each field (arXiv
category, subject...) that the suite's task metadata names."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

import numpy as np

from refig_toolkit_analysis.analysis.context import NO_JUDGMENTS, Context
from refig_toolkit_analysis.analysis.tables import Cell, Column, Table
from refig_toolkit_analysis.suite_stats import ALL, FIELD_KEYS, task_field

#: The row of tasks whose metadata names no field.
NO_FIELD = "(no field)"


def fields(ctx: Context) -> Iterator[Table]:
    """Mean total per field and configuration, with the field's task count."""
    scores = ctx.scores
    title = "Scores by field" + (f" (judge {ctx.primary})" if ctx.primary else "")
    if scores is None:
        yield Table("fields", title, [], insufficient=NO_JUDGMENTS)
        return
    by_field: dict[str, list[int]] = defaultdict(list)
    for t, task_id in enumerate(scores.tasks):
        task = ctx.data.tasks.get(task_id)
        name = task_field(task) if task is not None else ALL
        by_field[NO_FIELD if name == ALL else name].append(t)
    columns = [Column("field", "field"), Column("tasks", "tasks", "int")]
    columns += [Column(config, config, "float", 1) for config in scores.configs]
    table = Table(
        "fields",
        title,
        columns,
        description="Mean total over the tasks of each field that the configuration has "
        "scored (gate failures 0); the field is the first of the task metadata keys "
        f"{', '.join(FIELD_KEYS)} that is set.",
    )
    for name in sorted(by_field, key=lambda f: (f == NO_FIELD, f)):
        index = by_field[name]
        row: dict[str, Cell] = {"field": name, "tasks": len(index)}
        for c, config in enumerate(scores.configs):
            values = scores.total[c, index]
            values = values[np.isfinite(values)]
            row[config] = float(values.mean()) if values.size else None
        table.rows.append(row)
    if len(by_field.keys() - {NO_FIELD}) < 2:
        table.insufficient = ("the tasks name fewer than two fields (task metadata "
                              f"{', '.join(FIELD_KEYS)})")
    yield table
