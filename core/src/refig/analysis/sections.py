"""The report's built-in sections, registered here in the order every reporter shows them.

Each builder lives with its topic: :mod:`~refig.analysis.summary` (coverage, means, structural
audit, economics, per-task scores), :mod:`~refig.analysis.effects` (paired effects, weight
sensitivity), :mod:`~refig.analysis.judges` (repeatability, cross-judge agreement) and
:mod:`~refig.analysis.preferences` (Elo, judge-versus-human direction). Other code adds sections
with :func:`register_section` (see ``docs/reports.md``).
"""

from __future__ import annotations

from refig.analysis import effects, judges, preferences, summary
from refig.analysis.effects import EffectPair, effect_pairs
from refig.analysis.preferences import direction_table, elo_table, judge_margins
from refig.analysis.registry import SectionBuilder, register_section, sections

BUILT_IN: tuple[tuple[str, SectionBuilder], ...] = (
    ("coverage", summary.coverage),
    ("means", summary.means),
    ("structural", summary.structural),
    ("economics", summary.economics),
    ("effects", effects.effects),
    ("repeatability", judges.repeatability),
    ("judge_agreement", judges.judge_agreement),
    ("elo", preferences.elo),
    ("direction", preferences.direction),
    ("weights", effects.weights),
    ("task_scores", summary.task_scores),
)

for _name, _builder in BUILT_IN:
    register_section(_name, _builder)

__all__ = [
    "BUILT_IN",
    "EffectPair",
    "SectionBuilder",
    "direction_table",
    "effect_pairs",
    "elo_table",
    "judge_margins",
    "register_section",
    "sections",
]
