"""The report's tables on expert ratings: judges against the experts, and the experts' agreement.

A *case* is a task x configuration; its human score on an axis is the mean over annotators of
each one's latest active rating, its human total the sum of those means over the rubric's axes.
A judge's score is the mean over its successful judgments (repeats) of the case's artifact. A
family's report section calls these with its own judge and its paper's reference values, so any
family with a rubric gets them (:mod:`refig_toolkit_analysis`).
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence

from refig.models import Judgment, Rating

from refig_toolkit_analysis import stats
from refig_toolkit_analysis.analysis.context import (
    MIN_TASKS_FOR_INTERVAL,
    Context,
    correlation_estimate,
)
from refig_toolkit_analysis.analysis.tables import Column, Table, finite
from refig_toolkit_analysis.annotation.rating_items import Axis, rubric_axes
from refig_toolkit_analysis.annotation.ratings import stored_ratings

TOTAL = "total"
CaseKey = tuple[str, str]
_NO_RATINGS = "no expert ratings in this run; collect some with `refig annotate RUN --rate`"


def latest_ratings(ratings: Iterable[Rating]) -> dict[CaseKey, dict[str, Rating]]:
    """Per case (task, configuration), each annotator's latest active rating."""
    found: dict[CaseKey, dict[str, Rating]] = defaultdict(dict)
    for rating in ratings:
        if not rating.active:
            continue
        held = found[(rating.task_id, rating.config_id)].get(rating.annotator)
        if held is None or (rating.created_at, rating.id) > (held.created_at, held.id):
            found[(rating.task_id, rating.config_id)][rating.annotator] = rating
    return dict(found)


def _family_ratings(ctx: Context, family: str) -> dict[CaseKey, dict[str, Rating]]:
    tasks = ctx.data.tasks
    return {key: by for key, by in latest_ratings(stored_ratings(ctx.data.store)).items()
            if key[0] in tasks and tasks[key[0]].family == family}


def human_scores(by: dict[str, Rating], axes: Sequence[Axis]) -> dict[str, float]:
    """The annotators' mean per axis, and the sum of those means as ``total``."""
    means = {a.id: sum(r.scores[a.id] for r in by.values()) / len(by) for a in axes}
    return {**means, TOTAL: sum(means.values())}


def judge_scores(judgments: Iterable[Judgment], axes: Sequence[Axis]) -> dict[str, float] | None:
    """A judge's mean total, and its mean per rubric axis it scored, over its successful
    judgments (None without any): a judge on another rubric still meets the total."""
    ok = [j for j in judgments if str(j.status) == "ok" and j.total is not None]
    if not ok:
        return None
    found = {TOTAL: sum(float(j.total or 0.0) for j in ok) / len(ok)}
    for axis in axes:
        points = [s.score for j in ok for s in j.scores if s.axis == axis.id]
        if len(points) == len(ok):
            found[axis.id] = sum(points) / len(points)
    return found


def judge_human_table(ctx: Context, family: str, *, key: str, title: str,
                      judges: Sequence[str] | None = None, reference: str = "") -> Table:
    """Pearson's r of each judge with the experts, per rubric axis and for the total."""
    opts = ctx.options
    rubric, axes = rubric_axes(family)
    table = Table(key, title, [
        Column("judge", "judge"), Column("axis", "axis"), Column("cases", "rated cases", "int"),
        Column("clusters", "clusters", "int"),
        Column("pearson", "Pearson r", "estimate", 3, help="with a cluster-bootstrap interval")],
        description="Per judge and axis, Pearson's r between the judge's case means (over "
        "repeats) and the experts' case means (over annotators), on cases both scored; "
        f"{100 * opts.level:g}% percentile intervals from {opts.resamples:,} bootstrap resamples "
        f"of source clusters (from {MIN_TASKS_FOR_INTERVAL} clusters on). Axes of {rubric}; "
        "total = the judge's total against the sum of the experts' axis means (a judge on "
        f"another rubric meets the total only). {reference}".strip())
    rated = _family_ratings(ctx, family)
    if not rated:
        table.insufficient = _NO_RATINGS
        return table
    labels = defaultdict(list)
    for found in ctx.data.judgments.values():
        for judgment in found:
            labels[judgment.judge].append(judgment)
    for judge in judges if judges is not None else sorted(labels):
        pairs = []
        for (task, config), by in sorted(rated.items()):
            outcome = ctx.data.outcomes.get((task, config))
            machine = judge_scores([j for j in outcome.judgments if j.judge == judge], axes) \
                if outcome is not None else None
            if machine is not None:
                pairs.append((ctx.data.cluster(task), machine, human_scores(by, axes)))
        for axis in (*(a.id for a in axes), TOTAL):
            both = [(c, m[axis], h[axis]) for c, m, h in pairs if axis in m]
            r = stats.pearson_ci([m for _, m, _ in both], [h for _, _, h in both],
                                 [c for c, _, _ in both], resamples=opts.resamples,
                                 level=opts.level, seed=opts.seed)
            table.rows.append({"judge": judge, "axis": axis, "cases": r.n, "clusters": r.clusters,
                               "pearson": correlation_estimate(r)})
    return table


def expert_agreement_table(ctx: Context, family: str, *, key: str, title: str,
                           reference: str = "") -> Table:
    """Krippendorff's alpha (interval) between the experts, per rubric axis and for the total."""
    rubric, axes = rubric_axes(family)
    table = Table(key, title, [
        Column("axis", "axis"), Column("alpha", "Krippendorff's alpha", "float", 3),
        Column("units", "cases rated twice or more", "int"),
        Column("values", "ratings in them", "int"), Column("annotators", "annotators", "int")],
        description="Krippendorff's alpha at the interval level (squared differences) over the "
        "cases two or more experts rated, each expert's latest rating; total = the sum of an "
        f"expert's axis points. Axes of {rubric}. {reference}".strip())
    rated = _family_ratings(ctx, family)
    if not rated:
        table.insufficient = _NO_RATINGS
        return table
    for axis in (*(a.id for a in axes), TOTAL):
        units = {case: {who: float(sum(r.scores.values()) if axis == TOTAL else r.scores[axis])
                        for who, r in by.items()} for case, by in rated.items()}
        alpha = stats.krippendorff_alpha(units)
        table.rows.append({"axis": axis, "alpha": finite(alpha.alpha), "units": alpha.units,
                           "values": alpha.values, "annotators": alpha.annotators})
    if all(row["units"] == 0 for row in table.rows):
        table.insufficient = ("no case rated by two experts yet; a second annotator on "
                              "`refig annotate RUN --rate` (replication 2 by default) adds them")
    return table


def raters_table(ctx: Context, family: str, *, key: str, title: str) -> Table:
    """Per expert: ratings held and undone, median seconds per rating, mean points per axis
    (a lenient or severe expert shows here before it shows in alpha)."""
    rubric, axes = rubric_axes(family)
    table = Table(key, title, [
        Column("annotator", "annotator"), Column("ratings", "ratings", "int"),
        Column("undone", "undone", "int"), Column("seconds", "median seconds", "float", 1),
        *(Column(a.id, f"mean {a.id} (0-{a.max})", "float", 2) for a in axes)],
        description=f"Each expert's active ratings of this family's cases (axes of {rubric}), "
        "the ratings they took back, and their mean points per axis.")
    tasks = ctx.data.tasks
    mine = [r for r in stored_ratings(ctx.data.store, retracted=True)
            if r.task_id in tasks and tasks[r.task_id].family == family]
    for annotator in sorted({r.annotator for r in mine}):
        held = [r for r in mine if r.annotator == annotator and r.active]
        seconds = [r.seconds for r in held if r.seconds is not None]
        table.rows.append({
            "annotator": annotator, "ratings": len(held),
            "undone": sum(r.annotator == annotator and not r.active for r in mine),
            "seconds": statistics.median(seconds) if seconds else None,
            **{a.id: statistics.fmean(r.scores[a.id] for r in held) if held else None
               for a in axes}})
    if not table.rows:
        table.insufficient = _NO_RATINGS
    return table


