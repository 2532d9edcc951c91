"""PPTArena's table numbers: means over judged cases, system score over expected cases, subsets,
majority agreement and rank agreement."""

from __future__ import annotations

import math

import pytest
from refig_family_deck_edit.report.scores import (
    Case,
    Scored,
    by_label,
    majority_agreement,
    rank_agreement,
    summarise,
)


def _case(config: str, task: str, *pairs: tuple[float, float]) -> Case:
    return Case(config, task, [Scored(k, i, v) for k, (i, v) in enumerate(pairs)])


def test_missing_and_failed_cases_count_zero_in_the_system_score_only():
    cases = {("a", "t1"): _case("a", "t1", (5, 5)), ("a", "t2"): _case("a", "t2", (3, 4), (4, 4)),
             ("a", "t3"): Case("a", "t3", failed=True)}
    [row] = summarise(cases, ["a"], ["t1", "t2", "t3", "t4"], oracles=["a"])
    assert (row.expected, row.judged) == (4, 2)
    assert row.instruction == pytest.approx(4.25) and row.visual == pytest.approx(4.5)
    assert row.if_pct == pytest.approx(85.0) and row.vq_pct == pytest.approx(90.0)
    # case scores 100 and 75 (IF 3.5 = 70 %, VQ 4 = 80 %); the failed and missing count 0
    assert row.system == pytest.approx((100 + 75) / 4)
    assert row.oracle


def test_by_label_counts_a_multi_label_task_under_each_label():
    cases = {("a", "t1"): _case("a", "t1", (5, 1)), ("a", "t2"): _case("a", "t2", (1, 5))}
    rows = by_label(cases, ["a"], {"t1": ["Content", "Layout"], "t2": ["Layout"]})
    assert rows == [("a", "Content", 5.0, 1.0, 1), ("a", "Layout", 3.0, 3.0, 2)]


def test_majority_agreement_per_axis():
    stable = _case("a", "t1", (3, 4), (3, 4), (2, 4))
    split = _case("a", "t2", (1, 4), (2, 4), (3, 5))
    single = _case("a", "t3", (5, 5))
    agree_if, agree_vq, counted = majority_agreement([stable, split, single])
    assert (agree_if, agree_vq, counted) == (0.5, 1.0, 2)
    assert math.isnan(majority_agreement([single])[0])


def test_rank_agreement_of_two_judges():
    spearman, kendall = rank_agreement([10, 40, 30, 90], [20, 50, 10, 95])
    assert spearman == pytest.approx(0.8) and kendall == pytest.approx(2 / 3)
    assert all(math.isnan(v) for v in rank_agreement([1, 2], [2, 1]))
