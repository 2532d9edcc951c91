"""One analysis of a run: every section's tables, computed once and shared by every reporter."""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from refig import __version__
from refig.console import track
from refig.models import utcnow
from refig.store import RunStore

from refig_toolkit_analysis.analysis.context import Context, Options
from refig_toolkit_analysis.analysis.provenance import provenance_json
from refig_toolkit_analysis.analysis.rundata import RunData
from refig_toolkit_analysis.analysis.scores import JudgeScores
from refig_toolkit_analysis.analysis.sections import sections
from refig_toolkit_analysis.analysis.tables import Table
from refig_toolkit_analysis.stats import EloResult

#: Version of the ``refig report --json`` document; bumped when a key changes meaning.
REPORT_FORMAT = 1


@dataclass
class Analysis:
    """The report's tables plus the data behind them (for figures and per-task pages)."""

    context: Context
    tables: list[Table]
    generated_at: datetime = field(default_factory=utcnow)
    seconds: float = 0.0

    @property
    def data(self) -> RunData:
        return self.context.data

    @property
    def run(self) -> Path:
        return self.context.data.root

    @property
    def judges(self) -> dict[str, JudgeScores]:
        return self.context.judges

    @property
    def primary(self) -> str | None:
        return self.context.primary

    @property
    def elo(self) -> EloResult | None:
        return self.context.elo

    def table(self, key: str) -> Table | None:
        """A table by key, or None."""
        return next((t for t in self.tables if t.key == key), None)

    def as_dict(self) -> dict[str, Any]:
        """The ``--json`` document: run, options, configurations and every table by key."""
        data = self.data
        return {
            "format": REPORT_FORMAT,
            "refig_version": __version__,
            "run": str(self.run),
            "generated_at": self.generated_at.isoformat(),
            "suite": data.suite.model_dump(mode="json") if data.suite else None,
            "judge": self.primary,
            "judging": judging_label(data),
            "judges": list(self.judges),
            "options": {k: _json_option(v) for k, v in asdict(self.context.options).items()},
            "configurations": [
                data.configs[c].model_dump(mode="json")
                for c in data.config_order
                if c in data.configs
            ],
            "tasks": len(data.task_order),
            "provenance": provenance_json(self.context),
            "tables": {t.key: t.as_dict() for t in self.tables},
        }


def _json_option(value: Any) -> Any:
    """Options as JSON: tuples as lists, an infinite bucket edge as null (JSON has no infinity)."""
    if isinstance(value, tuple):
        return [_json_option(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


#: Tables computed from the primary judge's scores.
PRIMARY_TABLES = frozenset({"means", "effects", "axis_effects", "harness_model", "harness_swaps",
                            "harness_task_deltas", "fields", "weights", "weight_ranking",
                            "weight_sweep", "task_scores", "direction", "judge_elo",
                            "elo_weights"})


def judging_label(data: RunData) -> str | None:
    """Which judgments the tables hold when the run has several judging runs: one of them
    (``--judge-run``) or each artifact's mean over them; None for a run judged once."""
    if data.judge_run is not None:
        return f"judging run {data.judge_run} of {data.judging_runs}"
    if data.judging_runs > 1:
        return f"mean of {data.judging_runs} judging runs (per artifact, its successful repeats)"
    return None


def _note_judging(data: RunData, tables: list[Table]) -> None:
    """Say on each table of judge scores which judging run it holds (or their mean)."""
    label = judging_label(data)
    if label is None:
        return
    for table in tables:
        if table.key in PRIMARY_TABLES:
            table.notes.append(f"scores: {label}")


def _note_proxy(context: Context, tables: list[Table]) -> None:
    """Under every table of a proxy judge's scores, say so and what that proxy can see."""
    primary = context.primary
    scores = context.judges.get(primary) if primary is not None else None
    if scores is None or not scores.proxy:
        return
    note = f"{primary} is a proxy judge computed from deterministic metrics"
    note += f": {scores.sight}" if scores.sight else ""
    references = [o.metric("text", "reference") for o in context.data.outcomes.values()
                  if ("text", "reference") in o.values]
    ocr = sum(1 for value in references if value == 0)
    if ocr:
        note += (f"; text recall of {ocr} of {len(references)} artifacts is against OCR of the "
                 "source, the only reference their suite has")
    if scores.inexact:
        axes = ", ".join(sorted(scores.inexact))
        note += (f"; {axes} measured against OCR of the source, not exact labels, is marked and "
                 "left out of the total (the other axes scaled to the full range): a rebuild "
                 "that read the figure with the same OCR would match it by construction")
    for table in tables:
        if table.key in PRIMARY_TABLES and note not in table.notes:
            table.notes.append(note)


def analyse(
    run: Path | str | RunStore, options: Options | None = None, *, quiet: bool = True
) -> Analysis:
    """Read a run and build every registered section's tables."""
    store = run if isinstance(run, RunStore) else RunStore.open(Path(run))
    started = time.monotonic()
    options = options or Options()
    context = Context(RunData.load(store, judge_run=options.judge_run), options)
    _ = context.primary  # an unknown --judge fails before any work
    tables: list[Table] = []
    builders = sections({task.family for task in context.data.tasks.values()})
    with track("analysing", len(builders), quiet=quiet) as tracker:
        for _, builder in builders:
            tracker.start()
            tables.extend(builder(context))
            tracker.finish()
    _note_proxy(context, tables)
    _note_judging(context.data, tables)
    return Analysis(context, tables, seconds=time.monotonic() - started)


def analysis_for(run_dir: Path, options: Mapping[str, Any]) -> Analysis:
    """What a reporter renders: the run analysed with the ``Options`` fields found in
    ``options``, once per report.

    ``refig report`` hands every reporter of one report the same ``options``, holding a
    ``cache`` dict: the first reporter that asks analyses the run and leaves the analysis
    there, the others get that one. A reporter called on its own (no ``cache``) analyses
    ``run_dir`` afresh.
    """
    fields = set(Options.__dataclass_fields__)
    chosen = Options(**{k: v for k, v in options.items() if k in fields})
    cache = options.get("cache")
    key = (Path(run_dir).resolve(), chosen)
    if isinstance(cache, dict) and isinstance(cache.get(key), Analysis):
        return cache[key]
    analysis = analyse(run_dir, chosen, quiet=bool(options.get("quiet", True)))
    if isinstance(cache, dict):
        cache[key] = analysis
    return analysis
