"""The analysis layer: a run store turned into the report's tables, the one source of numbers.

``analyse(run)`` returns an :class:`Analysis` whose tables every reporter renders; section builders
are core's and the run's task families' (:func:`sections`, see ``docs/reports.md``).
"""

from refig_toolkit_analysis.analysis.context import Context, Options, preference_comparisons
from refig_toolkit_analysis.analysis.report import REPORT_FORMAT, Analysis, analyse, analysis_for
from refig_toolkit_analysis.analysis.rundata import Outcome, RunData
from refig_toolkit_analysis.analysis.scores import JudgeScores
from refig_toolkit_analysis.analysis.sections import (
    direction_table,
    effect_pairs,
    elo_table,
    judge_margins,
    sections,
)
from refig_toolkit_analysis.analysis.tables import (
    UNRANKED,
    Cell,
    Column,
    Estimate,
    Table,
    format_cell,
    format_number,
)

__all__ = [
    "REPORT_FORMAT",
    "UNRANKED",
    "Analysis",
    "Cell",
    "Column",
    "Context",
    "Estimate",
    "JudgeScores",
    "Options",
    "Outcome",
    "RunData",
    "Table",
    "analyse",
    "analysis_for",
    "direction_table",
    "effect_pairs",
    "elo_table",
    "format_cell",
    "format_number",
    "judge_margins",
    "preference_comparisons",
    "sections",
]
