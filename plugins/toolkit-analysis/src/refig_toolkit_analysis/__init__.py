"""refig's analysis toolkit: a run turned into the report's tables, the statistics behind them,
the human-annotation pages, and a suite's image statistics. A library, not a plugin: reporters,
families' report sections and commands import it (see README.md).

The names below are its API; they load on first use, so importing the package (a family's
``hooks`` module does, for :class:`RatingPage`) pulls in neither numpy nor scipy.
:mod:`refig_toolkit_analysis.stats` holds the statistics, one module per topic.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

#: Lazily exported names and the module each comes from.
_LAZY: dict[str, str] = {
    # the analysis: a run's tables, computed once per report and shared by its reporters
    **dict.fromkeys(
        ("UNRANKED", "Analysis", "Cell", "Column", "Context", "Estimate", "JudgeScores",
         "Options", "Outcome", "RunData", "Table", "analyse", "analysis_for", "effect_pairs",
         "format_cell", "format_number"),
        "refig_toolkit_analysis.analysis",
    ),
    # what a family's report sections share
    **dict.fromkeys(
        ("EDITABILITY_HINTS", "MIN_PAIRED_TASKS", "MIN_RANK_CONFIGS", "MIN_TASKS_FOR_INTERVAL",
         "NO_JUDGMENTS", "SEMANTIC_HINTS"),
        "refig_toolkit_analysis.analysis.context",
    ),
    **dict.fromkeys(("PAIR_COLUMNS", "EffectPair"), "refig_toolkit_analysis.analysis.effects"),
    # the edit probes' table (each family's ``probes`` section) and their task-page blocks
    **dict.fromkeys(("probe_blocks", "probes_section"), "refig_toolkit_analysis.analysis.probes"),
    **dict.fromkeys(("Section", "SectionBuilder"), "refig_toolkit_analysis.analysis.registry"),
    **dict.fromkeys(("TOTAL", "judge_labels"), "refig_toolkit_analysis.analysis.scores"),
    # each configuration's mean total, editability and caps under a judge (``refig demo``)
    **dict.fromkeys(("verdicts",), "refig_toolkit_analysis.analysis.verdicts"),
    # expert ratings: the report's tables, and what a family shows a rater
    **dict.fromkeys(("expert_agreement_table", "judge_human_table", "raters_table"),
                    "refig_toolkit_analysis.annotation.rating_report"),
    **dict.fromkeys(("RatingPage", "RatingView"),
                    "refig_toolkit_analysis.annotation.rating_items"),
    # a folder of runs read as one collection (``refig view DIR``, ``refig report DIR``)
    **dict.fromkeys(
        ("Unreadable", "collection_runs", "find_runs", "is_run", "judge_notice", "judges_of",
         "run_name", "runs_without"),
        "refig.collection",
    ),
    # a run's store, read by reporters and commands; the expert preferences kept in it
    **dict.fromkeys(("ObjectStore", "RunStore"), "refig.store"),
    **dict.fromkeys(("Preference",), "refig.models"),
    # a local page server that answers only by the names it was reached at
    **dict.fromkeys(("LOOPBACK", "LoopbackServer"), "refig_toolkit_analysis.loopback"),
    # a published paper's tables and figures, as a family declares them (``--paper``)
    **dict.fromkeys(("Paper", "PaperItem", "Part"), "refig_toolkit_analysis.papers"),
    # the suite metadata keys that name a task's field
    **dict.fromkeys(("FIELD_KEYS",), "refig_toolkit_analysis.suite_stats"),
}

__all__ = [
    "EDITABILITY_HINTS",
    "FIELD_KEYS",
    "LOOPBACK",
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
    "LoopbackServer",
    "ObjectStore",
    "Options",
    "Outcome",
    "Paper",
    "PaperItem",
    "Part",
    "Preference",
    "RatingPage",
    "RatingView",
    "RunData",
    "RunStore",
    "Section",
    "SectionBuilder",
    "Table",
    "Unreadable",
    "analyse",
    "analysis_for",
    "collection_runs",
    "effect_pairs",
    "expert_agreement_table",
    "find_runs",
    "format_cell",
    "format_number",
    "is_run",
    "judge_human_table",
    "judge_labels",
    "judge_notice",
    "judges_of",
    "probe_blocks",
    "probes_section",
    "raters_table",
    "run_name",
    "runs_without",
    "verdicts",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:
    from refig.collection import (
        Unreadable,
        collection_runs,
        find_runs,
        is_run,
        judge_notice,
        judges_of,
        run_name,
        runs_without,
    )
    from refig.models import Preference
    from refig.store import ObjectStore, RunStore

    from refig_toolkit_analysis.analysis import (
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
    from refig_toolkit_analysis.analysis.context import (
        EDITABILITY_HINTS,
        MIN_PAIRED_TASKS,
        MIN_RANK_CONFIGS,
        MIN_TASKS_FOR_INTERVAL,
        NO_JUDGMENTS,
        SEMANTIC_HINTS,
    )
    from refig_toolkit_analysis.analysis.effects import PAIR_COLUMNS, EffectPair
    from refig_toolkit_analysis.analysis.probes import probe_blocks, probes_section
    from refig_toolkit_analysis.analysis.registry import Section, SectionBuilder
    from refig_toolkit_analysis.analysis.scores import TOTAL, judge_labels
    from refig_toolkit_analysis.analysis.verdicts import verdicts
    from refig_toolkit_analysis.annotation.rating_items import RatingPage, RatingView
    from refig_toolkit_analysis.annotation.rating_report import (
        expert_agreement_table,
        judge_human_table,
        raters_table,
    )
    from refig_toolkit_analysis.loopback import LOOPBACK, LoopbackServer
    from refig_toolkit_analysis.papers import Paper, PaperItem, Part
    from refig_toolkit_analysis.suite_stats import FIELD_KEYS
