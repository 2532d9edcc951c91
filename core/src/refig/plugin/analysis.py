"""The analysis surface a reporter or a family's report sections import: the run turned into
tables (:class:`Analysis`, :func:`analysis_for`), the table types, the section context, and
the shared thresholds and helpers."""

from __future__ import annotations

from typing import NamedTuple

from refig.analysis import (
    UNRANKED,
    Analysis,
    Cell,
    Column,
    Context,
    Estimate,
    JudgeScores,
    Options,
    Outcome,
    RunData,
    Table,
    analyse,
    analysis_for,
    effect_pairs,
    format_cell,
    format_number,
)
from refig.analysis.context import (
    EDITABILITY_HINTS,
    MIN_PAIRED_TASKS,
    MIN_RANK_CONFIGS,
    MIN_TASKS_FOR_INTERVAL,
    NO_JUDGMENTS,
    SEMANTIC_HINTS,
)
from refig.analysis.effects import PAIR_COLUMNS, EffectPair
from refig.analysis.registry import SectionBuilder
from refig.analysis.scores import TOTAL, judge_labels
from refig.annotation.rating_report import (
    expert_agreement_table,
    judge_human_table,
    raters_table,
)
from refig.store import ObjectStore, RunStore


class Section(NamedTuple):
    """A named report section a family contributes: its builder, and the section it follows
    (None: at the end)."""

    name: str
    build: SectionBuilder
    after: str | None = None


__all__ = [
    "EDITABILITY_HINTS",
    "MIN_PAIRED_TASKS",
    "MIN_RANK_CONFIGS",
    "MIN_TASKS_FOR_INTERVAL",
    "NO_JUDGMENTS",
    "PAIR_COLUMNS",
    "SEMANTIC_HINTS",
    "TOTAL",
    "UNRANKED",
    "Analysis",
    "Cell",
    "Column",
    "Context",
    "EffectPair",
    "Estimate",
    "JudgeScores",
    "ObjectStore",
    "Options",
    "Outcome",
    "RunData",
    "RunStore",
    "Section",
    "SectionBuilder",
    "Table",
    "analyse",
    "analysis_for",
    "effect_pairs",
    "expert_agreement_table",
    "format_cell",
    "format_number",
    "judge_human_table",
    "judge_labels",
    "raters_table",
]
