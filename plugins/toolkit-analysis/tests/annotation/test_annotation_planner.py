"""The plan: every comparison once, balanced over configuration pairs and figures, seeded; each
annotator walked through it without repeats, with left and right counterbalanced."""

from __future__ import annotations

import itertools
from collections import Counter

from refig.models import Preference, utcnow
from refig_toolkit_analysis.annotation.candidates import Candidates, Side, load_candidates
from refig_toolkit_analysis.annotation.planner import (
    Plan,
    build_plan,
    next_assignment,
    orient,
    progress,
)
from refig_toolkit_analysis.annotation.votes import item_key, vote_key


def _candidates(tasks: int, configs: int, missing: frozenset | set = frozenset()) -> Candidates:
    """``tasks`` tasks (three per figure), each with every configuration but the ``missing``."""
    sides = {
        f"t{t:02d}": [
            Side(f"c{c}", f"art-{t}-{c}", f"png-{t}-{c}", f"audit {t} {c}")
            for c in range(configs)
            if (t, c) not in missing
        ]
        for t in range(tasks)
    }
    return Candidates(
        sides=sides,
        sources={t: f"src-{t}" for t in sides},
        clusters={t: f"fig{int(t[1:]) // 3}" for t in sides},
        configs=[f"c{c}" for c in range(configs)],
    )


def _vote(annotator: str, assignment, choice: str = "A", n: int = 0) -> Preference:
    return Preference(
        id=f"vote{annotator}{n:05d}",
        annotator=annotator,
        task_id=assignment.item.task_id,
        left=assignment.left.config_id,
        right=assignment.right.config_id,
        choice=choice,
        created_at=utcnow(),
    )


def test_every_comparison_is_planned_once() -> None:
    plan = build_plan(_candidates(12, 4, missing={(0, 1), (5, 3)}), seed=1)
    keys = [item.key for item in plan.items]
    expected = {
        item_key(f"t{t:02d}", f"c{a}", f"c{b}")
        for t in range(12)
        for a, b in itertools.combinations(range(4), 2)
        if (t, a) not in {(0, 1), (5, 3)} and (t, b) not in {(0, 1), (5, 3)}
    }
    assert len(keys) == len(set(keys)) and set(keys) == expected
    assert all(item.first.config_id < item.second.config_id for item in plan.items)


def test_every_prefix_is_balanced_over_pairs_and_figures() -> None:
    plan = build_plan(_candidates(12, 4), seed=7)
    pairs = 6
    for end in range(1, len(plan.items) + 1):
        counts = Counter((i.first.config_id, i.second.config_id) for i in plan.items[:end])
        assert max(counts.values()) - min(counts.get(p, 0) for p in _pairs(4)) <= 1, end
    for r in range(len(plan.items) // pairs):
        done = plan.items[: (r + 1) * pairs]
        per_pair: dict[tuple[str, str], list[str]] = {}
        for item in done:
            per_pair.setdefault((item.first.config_id, item.second.config_id), []).append(
                item.cluster
            )
        # 4 figures: in the first 4 rounds each pair sees a new figure every round
        for clusters in per_pair.values():
            assert len(set(clusters)) == min(r + 1, 4), (r, clusters)
        # figures, then tasks, are spread greedily (least used first): never far apart
        figures = Counter(item.cluster for item in done)
        assert max(figures.values()) - min(figures.get(f"fig{k}", 0) for k in range(4)) <= 2
        tasks = Counter(item.task_id for item in done)
        assert max(tasks.values()) - min(tasks.get(f"t{t:02d}", 0) for t in range(12)) <= 2


def _pairs(configs: int) -> list[tuple[str, str]]:
    return [(f"c{a}", f"c{b}") for a, b in itertools.combinations(range(configs), 2)]


def test_pairs_with_fewer_tasks_drop_out_and_the_rest_stay_balanced() -> None:
    missing = {(t, 3) for t in range(8)}  # c3 only exists on tasks 8..11
    plan = build_plan(_candidates(12, 4, missing=missing), seed=2)
    assert plan.pairs()[("c0", "c3")] == 4 and plan.pairs()[("c0", "c1")] == 12
    first_rounds = plan.items[: 6 * 4]
    counts = Counter((i.first.config_id, i.second.config_id) for i in first_rounds)
    assert set(counts.values()) == {4}


def test_the_plan_is_seeded() -> None:
    candidates = _candidates(9, 3)
    keys = lambda plan: [i.key for i in plan.items]  # noqa: E731
    assert keys(build_plan(candidates, 5)) == keys(build_plan(candidates, 5))
    assert keys(build_plan(candidates, 5)) != keys(build_plan(candidates, 6))


def test_annotators_never_see_a_comparison_twice_across_sessions() -> None:
    plan = build_plan(_candidates(6, 3), seed=0)
    votes: list[Preference] = []
    seen: dict[str, list] = {"ann": [], "bea": [], "cid": []}
    for n in range(3 * len(plan.items) + 3):
        who = "ann" if n % 3 == 0 else ("bea" if n % 3 == 1 else "cid")
        assignment = next_assignment(plan, who, votes)  # a fresh session each time
        if assignment is None:
            continue
        seen[who].append(assignment.item.key)
        votes.append(_vote(who, assignment, n=n))
    for keys in seen.values():
        assert len(keys) == len(set(keys)) == len(plan.items)
    assert next_assignment(plan, "ann", votes) is None
    assert progress(plan, "ann", votes).done == len(plan.items)


def test_a_retracted_vote_makes_the_comparison_available_again() -> None:
    plan = build_plan(_candidates(3, 3), seed=0)
    first = next_assignment(plan, "ann", [])
    vote = _vote("ann", first)
    assert next_assignment(plan, "ann", [vote]).item.key != first.item.key
    retracted = vote.model_copy(update={"retracted_at": utcnow()})
    again = next_assignment(plan, "ann", [retracted])
    assert again.item.key == first.item.key
    assert progress(plan, "ann", [retracted]).done == 0


def test_replication_decides_who_follows_whom() -> None:
    plan = build_plan(_candidates(6, 3), seed=0)
    votes = []
    for n in range(4):
        votes.append(_vote("ann", next_assignment(plan, "ann", votes), n=n))
    ann_keys = [vote_key(v) for v in votes]
    # a second annotator follows the first's trail (the default replication is 2) ...
    assert next_assignment(plan, "bea", votes).item.key == ann_keys[0]
    # ... unless one annotator per comparison is planned
    assert next_assignment(plan, "bea", votes, replication=1).item.key == plan.items[4].key
    # a third moves on once two have voted; one on screen counts as voted
    votes.append(_vote("bea", next_assignment(plan, "bea", votes), n=9))
    assert next_assignment(plan, "cid", votes).item.key == ann_keys[1]
    on_screen = next_assignment(plan, "bea", votes)
    assert on_screen.item.key == ann_keys[1]
    assert next_assignment(plan, "cid", votes, {"bea": on_screen}).item.key == ann_keys[2]


def test_two_annotators_on_one_pair_at_once_see_opposite_orders() -> None:
    plan = build_plan(_candidates(30, 2), seed=1)
    lefts = Counter()
    for start in range(len(plan.items)):
        rest = Plan(plan.items[start:], plan.seed)  # each item in turn is the first one
        ann = next_assignment(rest, "ann", [])
        bea = next_assignment(rest, "bea", [], {"ann": ann})
        assert bea.item.key == ann.item.key and bea.left == ann.right
        lefts[ann.left.config_id] += 1
    assert len(lefts) == 2  # and the first one's order is a coin, not always the same


def test_left_and_right_are_counterbalanced_per_comparison() -> None:
    plan = build_plan(_candidates(40, 2), seed=3)
    lefts = Counter(orient(item, [], "ann", plan.seed).left.config_id for item in plan.items)
    assert 8 <= lefts["c0"] <= 32  # a fair coin per comparison (seeded)
    item = plan.items[0]
    shown = orient(item, [], "ann", 3)
    vote = _vote("ann", shown)
    # the next annotator sees the other order, whatever their coin says
    for who in ("bea", "cid", "dan", "eve"):
        other = orient(item, [vote.left], who, 3)
        assert other.left == shown.right and other.right == shown.left


def test_plan_from_a_run_skips_gate_failures_and_says_why_when_empty(make_run) -> None:
    store = make_run(tasks=6, configs=3)
    candidates = load_candidates(store)
    plan = build_plan(candidates, 0)
    assert plan.items and candidates.skipped["failed the gate"] > 0
    assert "comparisons: 3 configuration pairs" in plan.describe()
    alone = make_run("alone", tasks=3, configs=1)
    empty = load_candidates(alone)
    assert build_plan(empty, 0).items == ()
    assert "one configuration (m1@h1/direct)" in str(empty.why_empty())


def test_plan_is_fast_enough_for_a_large_run() -> None:
    """120 figures x 10 configurations: 5,400 comparisons planned, walked by an annotator."""
    plan: Plan = build_plan(_candidates(120, 10), seed=0)
    assert len(plan.items) == 120 * 45
    votes = [_vote("ann", next_assignment(plan, "ann", []))]
    assert next_assignment(plan, "ann", votes * 1) is not None
