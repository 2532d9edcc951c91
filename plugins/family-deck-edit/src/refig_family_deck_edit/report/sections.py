"""The deck-edit report sections: PPTArena's tables, built from the run's analysis context.

Full suite and hard subset are separate tables, never mixed; every table marks the ``oracle``
baseline's configuration; IF and VQ are 0-5 means over judged cases, IF% and VQ% their share of
5 over the EXPECTED cases and PPTArena's system score the case score over them, missing or failed
cases counted 0 (infrastructure failures too, as its published app counts them); refig's system
score is the same over the expected tasks less the infrastructure failures. Attempts that
failed for the provider or the set-up are judged cases scoring 0 only with
``--count-failures``, as in the rest of the report.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from refig_toolkit_analysis import (
    Column,
    Section,
    Table,
    expert_agreement_table,
    judge_human_table,
    judge_labels,
    probes_section,
    raters_table,
)

from refig_family_deck_edit.report.cases import collect, label, oracle_configs, task_labels
from refig_family_deck_edit.report.dataset import dataset_tables
from refig_family_deck_edit.report.executor import executor_table
from refig_family_deck_edit.report.scores import (
    by_label,
    majority_agreement,
    over_expected,
    rank_agreement,
    summarise,
    tasks_by_label,
)

DECK_EDIT = "deck-edit"

#: Table notes are joined with "; " and the list ends with a full stop: none ends with one.
ORACLE_NOTE = ("(oracle) returns the hidden target deck: it validates the judges and is no "
               "agent")
_MAIN = [Column("config", "configuration"),
         Column("if", "IF (0-5)", "float", 2, best="max"),
         Column("vq", "VQ (0-5)", "float", 2, best="max"),
         Column("if_pct", "IF%", "pct", 1, best="max",
                help="IF / 5 summed over judged cases, divided by the expected cases (a missing "
                "or failed case 0), as PPTArena's app"),
         Column("vq_pct", "VQ%", "pct", 1, best="max",
                help="VQ / 5 summed over judged cases, divided by the expected cases (a missing "
                "or failed case 0), as PPTArena's app"),
         Column("case", "case score (judged)", "float", 1, best="max",
                help="mean of IF% and VQ% over the judged cases only (the app's "
                "mean_scored_pct)"),
         Column("system", "system score (PPTArena)", "float", 1, best="max",
                help="case score over every expected case, missing or failed counted 0, "
                "infrastructure failures too (PPTArena's published app)"),
         Column("system_measured", "system score (infra. out)", "float", 1, best="max",
                help="case score over the expected cases less the infrastructure failures "
                "(all of them with --count-failures), missing or failed counted 0"),
         Column("judged", "judged / expected")]


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _pct(value: float) -> float | None:
    """A percent as the ``pct`` column's share of 1."""
    return _finite(value / 100)


def _infrastructure_note(count: int, counted: bool) -> str:
    """What the deck tables do with attempts that failed for the provider or the set-up."""
    what = f"{count} attempt{'s' if count != 1 else ''} failed for the provider or the set-up, " \
        "not the model: "
    if counted:
        return what + "judged cases scoring 0 (--count-failures)"
    return what + ("left out of IF, VQ, the case score and the system score (infra. out) "
                   "(--count-failures scores them 0); PPTArena's system score counts them 0 "
                   "over the expected cases, as its published app does")


def _judge(ctx: Any) -> tuple[str | None, list[Any]]:
    labels = judge_labels(ctx.data)
    primary = ctx.primary
    return primary, labels.get(primary, []) if primary else []


def _summary(ctx: Any, key: str, title: str, tasks: list[str]) -> Table:
    primary, judgments = _judge(ctx)
    oracles = oracle_configs(ctx.data)
    table = Table(key=key, title=f"{title} ({primary or 'no judge'})", columns=list(_MAIN))
    if primary is None:
        table.insufficient = "no judgments yet: run `refig evaluate RUN --judge deck-metrics`"
        return table
    counted = ctx.options.count_failures
    cases = collect(ctx.data, judgments, counted)
    for row in summarise(cases, ctx.data.config_order, tasks, oracles):
        judged = f"{row.judged} / {row.expected}"
        table.rows.append({
            "config": label(row.config, oracles), "if": _finite(row.instruction),
            "vq": _finite(row.visual), "if_pct": _pct(row.if_pct),
            "vq_pct": _pct(row.vq_pct), "case": _finite(row.case),
            "system": _finite(row.system), "system_measured": _finite(row.system_measured),
            "judged": judged + (f" ({row.infrastructure} infra.)" if row.infrastructure else "")})
    if oracles:
        table.notes.append(ORACLE_NOTE)
    chosen = set(tasks)
    if infrastructure := sum(o.infrastructure for (task, _), o in ctx.data.outcomes.items()
                             if task in chosen):
        table.notes.append(_infrastructure_note(infrastructure, counted))
    if any(j.proxy for j in judgments):
        table.notes.append(f"{primary} is a proxy judge (deterministic), not a model")
    return table


def main_tables(ctx: Any) -> Iterator[Table]:
    """IF/VQ over the full suite, then (separately) over the hard subset when it has one."""
    tasks = list(ctx.data.task_order)
    yield _summary(ctx, "deck-edit", "Deck editing, full suite", tasks)
    hard = [t for t in tasks if ctx.data.tasks[t].meta.get("hard")]
    if hard:
        yield _summary(ctx, "deck-edit-hard", f"Deck editing, hard subset ({len(hard)} tasks)",
                       hard)


def _by(ctx: Any, key: str, meta: str, title: str) -> Iterator[Table]:
    primary, judgments = _judge(ctx)
    if primary is None:
        return
    oracles = oracle_configs(ctx.data)
    cases = collect(ctx.data, judgments, ctx.options.count_failures)
    labels = task_labels(ctx.data.tasks, meta)
    expected = {name: len(tasks) for name, tasks in tasks_by_label(labels).items()}
    table = Table(key=key, title=f"{title} ({primary})", columns=[
        Column("config", "configuration"), Column("label", meta.replace("_", " ")),
        Column("if", "IF (0-5)", "float", 2), Column("vq", "VQ (0-5)", "float", 2),
        Column("if_pct", "IF%", "pct", 1, help="over the label's expected cases, missing 0"),
        Column("vq_pct", "VQ%", "pct", 1, help="over the label's expected cases, missing 0"),
        Column("cases", "cases", "int"), Column("expected", "expected", "int")])
    for config, name, i, v, n in by_label(cases, ctx.data.config_order, labels):
        # a judged mean times the judged count is the judged sum (no judged case: 0 of 5)
        table.rows.append({
            "config": label(config, oracles), "label": name, "if": _finite(i),
            "vq": _finite(v), "cases": n, "expected": expected[name],
            "if_pct": _pct(over_expected([i * n] if n else [], expected[name])),
            "vq_pct": _pct(over_expected([v * n] if n else [], expected[name]))})
    if oracles:
        table.notes.append(ORACLE_NOTE)
    yield table


def by_category(ctx: Any) -> Iterator[Table]:
    yield from _by(ctx, "deck-edit-category", "categories", "IF and VQ by category")


def by_edit_type(ctx: Any) -> Iterator[Table]:
    yield from _by(ctx, "deck-edit-type", "edit_type", "IF and VQ by edit type")


def judge_stability(ctx: Any) -> Iterator[Table]:
    """Majority agreement across repeats per judge, and rank agreement with the primary."""
    labels = judge_labels(ctx.data)
    if not labels:
        return
    stability = Table(key="deck-judge-stability", title="Judge stability across repeats",
                      columns=[Column("judge", "judge"), Column("cases", "cases", "int"),
                               Column("if", "IF majority agreement", "pct", 0),
                               Column("vq", "VQ majority agreement", "pct", 0)],
                      description="Share of cases (judged at least twice) whose most frequent "
                      "score is given by more than half of the repeats; PPTArena reports 78% "
                      "(IF) and 95% (VQ) over 5 runs.")
    systems: dict[str, list[float]] = {}
    deterministic = []
    for judge, judgments in sorted(labels.items()):
        cases = collect(ctx.data, judgments)
        systems[judge] = [r.system for r in summarise(cases, ctx.data.config_order,
                                                      list(ctx.data.task_order))]
        if judgments and all(j.deterministic for j in judgments):
            deterministic.append(judge)  # scored once: repeats would agree by construction
            continue
        agree_if, agree_vq, counted = majority_agreement(cases.values())
        stability.rows.append({"judge": judge, "cases": counted, "if": _finite(agree_if),
                               "vq": _finite(agree_vq)})
    if deterministic:
        stability.notes.append(f"not applicable: deterministic judge ({', '.join(deterministic)})"
                               "; it is scored once, and repeats would agree by construction")
        if not stability.rows:
            stability.not_applicable = f"deterministic judge ({', '.join(deterministic)})"
    yield stability
    primary = ctx.primary
    others = [j for j in systems if j != primary]
    if primary is None or not others:
        return
    ranks = Table(key="deck-judge-ranks", title=f"Rank agreement with {primary}",
                  columns=[Column("judge", "judge"), Column("configs", "configurations", "int"),
                           Column("spearman", "Spearman", "float", 2),
                           Column("kendall", "Kendall", "float", 2)])
    for judge in others:
        spearman, kendall = rank_agreement(systems[primary], systems[judge])
        ranks.rows.append({"judge": judge, "configs": len(systems[judge]),
                           "spearman": _finite(spearman), "kendall": _finite(kendall)})
    if len(ctx.data.config_order) < 3:
        ranks.insufficient = "rank agreement needs at least three configurations"
    yield ranks


def judge_human(ctx: Any) -> Iterator[Table]:
    """Each judge against the experts' ratings (`refig annotate RUN --rate`) per axis, and the
    experts' agreement; nothing when no case is rated."""
    table = judge_human_table(ctx, DECK_EDIT, key="deck-judge-human",
                              title="Judges against expert ratings (Pearson)",
                              reference="PPTArena reports 0.72 (IF) and 0.81 (VQ).")
    if table.insufficient is not None:
        return
    yield table
    yield expert_agreement_table(ctx, DECK_EDIT, key="deck-expert-agreement",
                                 title="Agreement between experts (Krippendorff's alpha)")
    yield raters_table(ctx, DECK_EDIT, key="deck-raters", title="Expert ratings per annotator")


SECTIONS = (
    Section("deck-edit", main_tables),
    Section("probes", probes_section((), "move, relabel, delete, recolour on the edited slides"),
            after="deck-edit"),
    Section("deck-edit-category", by_category, after="probes"),
    Section("deck-edit-type", by_edit_type, after="deck-edit-category"),
    Section("deck-judges", judge_stability, after="deck-edit-type"),
    Section("deck-judge-human", judge_human, after="deck-judges"),
    Section("deck-dataset", dataset_tables, after="deck-judge-human"),
    Section("deck-executor", executor_table, after="deck-dataset"),
)
