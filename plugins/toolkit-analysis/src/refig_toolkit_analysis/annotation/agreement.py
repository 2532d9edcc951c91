"""The report's tables on the human votes: each annotator's votes, and agreement between them.

A vote is read as the outcome of its comparison whatever the order shown: the first
configuration (by id) wins, the second wins, or a tie. Agreement uses each annotator's latest
active vote per comparison. Core's report lists them after the Elo table
(:mod:`refig_toolkit_analysis.analysis.sections`).
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Iterator
from itertools import combinations
from typing import Any

import numpy as np
from refig.models import Preference

from refig_toolkit_analysis import stats
from refig_toolkit_analysis.analysis.context import Context
from refig_toolkit_analysis.analysis.tables import Cell, Column, Estimate, Table, finite
from refig_toolkit_analysis.annotation.votes import ItemKey, vote_key

OUTCOMES = ("first", "tie", "second")
#: Below this many shared comparisons a kappa is printed without an interval.
MIN_KAPPA_ITEMS = 10

_NO_VOTES = "no human votes in this run; collect some with `refig annotate RUN`"


def outcome(vote: Preference) -> str:
    """``first``, ``second`` (the configuration that won, in id order) or ``tie``."""
    if vote.choice == "tie":
        return "tie"
    winner = vote.left if vote.choice == "A" else vote.right
    return "first" if winner == vote_key(vote)[1] else "second"


def ratings(votes: Iterable[Preference]) -> dict[ItemKey, dict[str, str]]:
    """Per comparison, each annotator's outcome (their latest active vote on it)."""
    latest: dict[tuple[ItemKey, str], Preference] = {}
    for vote in votes:
        if not vote.active:
            continue
        key = (vote_key(vote), vote.annotator)
        held = latest.get(key)
        if held is None or (vote.created_at, vote.id) > (held.created_at, held.id):
            latest[key] = vote
    found: dict[ItemKey, dict[str, str]] = defaultdict(dict)
    for (item, annotator), vote in sorted(latest.items()):
        found[item][annotator] = outcome(vote)
    return dict(found)


def _kappa_cell(result: stats.KappaResult) -> Estimate | None:
    if not math.isfinite(result.kappa):
        return None
    if result.n < MIN_KAPPA_ITEMS:
        return Estimate(result.kappa)
    return Estimate(result.kappa, finite(result.low), finite(result.high))


def _direction(pairs: list[tuple[str, str]], level: float) -> tuple[int, Estimate | None]:
    """Among outcome pairs where both were decisive, the share that picked the same winner."""
    decisive = [(a, b) for a, b in pairs if a != "tie" and b != "tie"]
    if not decisive:
        return 0, None
    same = sum(a == b for a, b in decisive)
    low, high = stats.wilson_interval(same, len(decisive), level=level)
    return len(decisive), Estimate(same / len(decisive), low, high)


def agreement_table(ctx: Context) -> Table:
    """Cohen's kappa per annotator pair and Fleiss' kappa over all, on comparisons seen twice."""
    opts = ctx.options
    columns = [
        Column("annotators", "annotators"),
        Column("items", "shared comparisons", "int"),
        Column("figures", "source figures", "int"),
        Column("agreement", "same answer", "pct", 1),
        Column("kappa", "kappa", "estimate", 3, help="Cohen's per pair; Fleiss' for all"),
        Column("decisive", "both decisive", "int"),
        Column("same_direction", "same winner", "pct", 1),
    ]
    table = Table(
        "annotator_agreement",
        "Agreement between annotators",
        columns,
        description="Comparisons (task and configuration pair, either order) voted on by two or "
        "more annotators; answers are first wins, tie or second wins. Cohen's kappa per pair, "
        "Fleiss' kappa over all (Gwet's form for varying annotators per comparison), "
        f"{100 * opts.level:g}% intervals from {opts.resamples:,} cluster-bootstrap resamples "
        f"over source figures; 'same winner' among comparisons both answered decisively, "
        "Wilson intervals.",
    )
    found = ratings(ctx.data.preferences)
    if not found:
        table.insufficient = _NO_VOTES
        return table
    kw: dict[str, Any] = dict(resamples=opts.resamples, level=opts.level, seed=opts.seed)
    annotators = sorted({a for raters in found.values() for a in raters})
    for u, v in combinations(annotators, 2):
        shared = [(k, r[u], r[v]) for k, r in found.items() if u in r and v in r]
        if not shared:
            continue
        clusters = [ctx.data.cluster(k[0]) for k, _, _ in shared]
        result = stats.cohen_kappa(
            [a for _, a, _ in shared], [b for _, _, b in shared], clusters=clusters, **kw
        )
        decisive, direction = _direction([(a, b) for _, a, b in shared], opts.level)
        table.rows.append(
            {
                "annotators": f"{u} vs {v}",
                "items": len(shared),
                "figures": len(set(clusters)),
                "agreement": result.observed,
                "kappa": _kappa_cell(result),
                "decisive": decisive,
                "same_direction": direction,
            }
        )
    multi = {k: r for k, r in found.items() if len(r) >= 2}
    if not multi:
        table.insufficient = (
            f"{len(annotators)} annotator(s) and no comparison voted on by two of them yet; "
            "start `refig annotate RUN` with --replication 2 (the default) for a second annotator"
        )
        return table
    if len(annotators) > 2:
        items = sorted(found)
        counts = np.array(
            [[list(found[k].values()).count(o) for o in OUTCOMES] for k in items], dtype=float
        )
        result = stats.fleiss_kappa(counts, clusters=[ctx.data.cluster(k[0]) for k in items], **kw)
        pairs = [(a, b) for r in multi.values() for a, b in combinations(list(r.values()), 2)]
        decisive, direction = _direction(pairs, opts.level)
        table.rows.append(
            {
                "annotators": f"all {len(annotators)}",
                "items": len(multi),
                "figures": len({ctx.data.cluster(k[0]) for k in multi}),
                "agreement": result.observed,
                "kappa": _kappa_cell(result),
                "decisive": decisive,
                "same_direction": direction,
            }
        )
    if any(isinstance(r["items"], int) and r["items"] < MIN_KAPPA_ITEMS for r in table.rows):
        table.notes.append(f"no kappa interval below {MIN_KAPPA_ITEMS} shared comparisons")
    return table


def votes_table(ctx: Context) -> Table:
    """Per annotator: votes, undone votes, ties, the share of decisive votes for the left side."""
    opts = ctx.options
    columns = [
        Column("annotator", "annotator"),
        Column("votes", "votes", "int"),
        Column("undone", "undone", "int"),
        Column("ties", "ties", "pct", 1),
        Column("left", "chose left (of decisive)", "pct", 1, help="position bias if far from 50%"),
        Column("median_seconds", "median seconds", "float", 1),
        Column("shared", "shared with others", "int"),
    ]
    table = Table(
        "annotator_votes",
        "Human votes per annotator",
        columns,
        description="Active votes; 'undone' counts votes taken back with undo. The left-side "
        "share among decisive votes (Wilson interval) shows position bias; the page "
        "counterbalances left and right per comparison.",
    )
    every = list(ctx.data.store.iter(Preference))
    if not every:
        table.insufficient = _NO_VOTES
        return table
    found = ratings(every)
    by_annotator: dict[str, list[Preference]] = defaultdict(list)
    for vote in every:
        by_annotator[vote.annotator].append(vote)
    for annotator, votes in sorted(by_annotator.items()):
        active = [v for v in votes if v.active]
        decisive = [v for v in active if v.choice != "tie"]
        left = sum(v.choice == "A" for v in decisive)
        seconds = [v.seconds for v in active if v.seconds is not None]
        row: dict[str, Cell] = {
            "annotator": annotator,
            "votes": len(active),
            "undone": len(votes) - len(active),
            "ties": (len(active) - len(decisive)) / len(active) if active else None,
            "left": None,
            "median_seconds": statistics.median(seconds) if seconds else None,
            "shared": sum(1 for r in found.values() if annotator in r and len(r) >= 2),
        }
        if decisive:
            low, high = stats.wilson_interval(left, len(decisive), level=opts.level)
            row["left"] = Estimate(left / len(decisive), low, high)
        table.rows.append(row)
    return table


def annotator_votes(ctx: Context) -> Iterator[Table]:
    """Section builder of :func:`votes_table`."""
    yield votes_table(ctx)


def annotator_agreement(ctx: Context) -> Iterator[Table]:
    """Section builder of :func:`agreement_table`."""
    yield agreement_table(ctx)

