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
    # IF% and VQ% over the four expected cases, the failed and missing 0 (PPTArena's app)
    assert row.if_pct == pytest.approx((100 + 70) / 4) and row.vq_pct == pytest.approx(
        (100 + 80) / 4)
    assert row.case == pytest.approx((85 + 90) / 2)  # judged cases only, named apart
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


def test_percentages_over_expected_cases_equal_a_direct_computation():
    """IF%, VQ% and the system score against numpy over a matrix with missing cells as 0."""
    import numpy as np

    rng = np.random.default_rng(3)
    tasks = [f"t{k}" for k in range(17)]
    configs = ["a", "b", "c"]
    table = np.full((len(configs), len(tasks), 2), np.nan)
    cases = {}
    for ci, config in enumerate(configs):
        for ti, task in enumerate(tasks):
            roll = rng.random()
            if roll < 0.2:
                continue  # no attempt at all
            if roll < 0.3:
                cases[(config, task)] = Case(config, task, failed=True)
                continue
            repeats = [(int(rng.integers(0, 6)), int(rng.integers(0, 6)))
                       for _ in range(int(rng.integers(1, 4)))]
            cases[(config, task)] = _case(config, task, *repeats)
            table[ci, ti] = np.mean(np.array(repeats, dtype=float), axis=0)
    rows = summarise(cases, configs, tasks)
    scored = np.nan_to_num(table, nan=0.0) / 5 * 100  # the app: a missing row counts 0
    for ci, row in enumerate(rows):
        assert row.if_pct == pytest.approx(scored[ci, :, 0].sum() / len(tasks))
        assert row.vq_pct == pytest.approx(scored[ci, :, 1].sum() / len(tasks))
        assert row.system == pytest.approx(scored[ci].mean(axis=1).sum() / len(tasks))
        assert row.system == pytest.approx((row.if_pct + row.vq_pct) / 2)
        judged = ~np.isnan(table[ci, :, 0])
        assert row.judged == judged.sum()
        assert row.case == pytest.approx(scored[ci, judged].mean())
