"""The report's core sections, in the order every reporter shows them, and the sections of a
run's task families placed among them.

Each builder lives with its topic: :mod:`.provenance` (deviations from the locked plan,
first; the environment, last), :mod:`.summary` (coverage, means, economics,
per-task scores), :mod:`.runs` (means and effects per judging run), :mod:`.fields` (scores by
field), :mod:`.effects` (paired effects, on the total and per axis), :mod:`.crossed` (harness
and model apart), :mod:`.judges`
(repeatability, cross-judge agreement), :mod:`.preferences` (Elo, judge-versus-
human direction), :mod:`.elo_fit` (judge means and rubric weights against Elo) and
:mod:`..annotation.agreement` (human votes). A family adds its own (figure-to-slide: the
structural audit and the editability weight sensitivity).
"""

from __future__ import annotations

from collections.abc import Iterable

from refig_toolkit_analysis.analysis import (
    crossed,
    effects,
    elo_fit,
    fields,
    judges,
    preferences,
    provenance,
    runs,
    summary,
)
from refig_toolkit_analysis.analysis.effects import EffectPair, effect_pairs
from refig_toolkit_analysis.analysis.preferences import direction_table, elo_table, judge_margins
from refig_toolkit_analysis.analysis.registry import SectionBuilder, ordered


def built_in() -> tuple[tuple[str, SectionBuilder], ...]:
    """Core's sections in report order (the human-vote ones are read from
    :mod:`..annotation.agreement`, which imports this package: hence a function)."""
    from refig_toolkit_analysis.annotation import agreement

    return (
        ("deviations", provenance.deviations),
        ("coverage", summary.coverage),
        ("means", summary.means),
        ("run_means", runs.run_means),
        ("fields", fields.fields),
        ("economics", summary.economics),
        ("effects", effects.effects),
        ("axis_effects", effects.axis_effects),
        ("run_effects", runs.run_effects),
        ("harness_model", crossed.harness_model),
        ("repeatability", judges.repeatability),
        ("judge_agreement", judges.judge_agreement),
        ("elo", preferences.elo),
        ("judge_elo", elo_fit.judge_elo),
        ("elo_weights", elo_fit.elo_weights),
        ("annotator_votes", agreement.annotator_votes),
        ("annotator_agreement", agreement.annotator_agreement),
        ("direction", preferences.direction),
        ("task_scores", summary.task_scores),
        ("environment", provenance.environment),
    )


def sections(families: Iterable[str] = ()) -> list[tuple[str, SectionBuilder]]:
    """Core's sections and those of ``families`` (installed ones; others add none)."""
    from refig.engine.plugins import installed_family

    contributed: list[tuple[str, SectionBuilder, str | None]] = []
    for name in sorted(set(families)):
        family = installed_family(name)
        if family is None:
            continue
        for section in family.report_sections():
            name, builder, *rest = section
            contributed.append((name, builder, rest[0] if rest else None))
    return ordered(built_in(), contributed)


__all__ = [
    "EffectPair",
    "SectionBuilder",
    "built_in",
    "direction_table",
    "effect_pairs",
    "elo_table",
    "judge_margins",
    "sections",
]
