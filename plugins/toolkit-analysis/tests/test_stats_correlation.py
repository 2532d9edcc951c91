"""Pearson with a cluster-bootstrap interval against scipy and a plain resampling loop, and
Krippendorff's alpha against a hand-checked case and an independent formula on random data."""

from __future__ import annotations

import math

import numpy as np
import pytest
from refig_toolkit_analysis import stats
from refig_toolkit_analysis.stats.bootstrap import resample_indices
from scipy.stats import pearsonr


def test_pearson_matches_scipy_and_a_plain_bootstrap_loop() -> None:
    rng = np.random.default_rng(5)
    x = rng.integers(0, 6, 40).astype(float)
    y = x + rng.normal(0, 1.5, 40)
    clusters = [f"fig{k // 2}" for k in range(40)]  # two cases per source figure
    result = stats.pearson_ci(x, y, clusters, resamples=400, seed=3)
    assert result.r == pytest.approx(pearsonr(x, y).statistic, abs=1e-12)
    assert (result.n, result.clusters) == (40, 20)
    # the same resamples by hand: draw figures (indices into the sorted labels), take every
    # case of each drawn figure
    _, group = np.unique(clusters, return_inverse=True)
    loop = []
    for rows in resample_indices(20, 400, 3):
        for row in rows:
            take = np.concatenate([np.flatnonzero(group == g) for g in row])
            loop.append(pearsonr(x[take], y[take]).statistic)
    low, high = np.quantile(loop, [0.025, 0.975])
    assert (result.low, result.high) == pytest.approx((low, high), abs=1e-9)
    assert result.low < result.r < result.high


def test_pearson_is_undefined_without_variance_or_cases() -> None:
    assert math.isnan(stats.pearson_ci([1, 1, 1, 1], [1, 2, 3, 4]).r)
    short = stats.pearson_ci([1, 2], [2, 1])
    assert math.isnan(short.r) and short.n == 2
    with pytest.raises(ValueError, match="NaN"):
        stats.pearson_ci([1, 2, math.nan], [1, 2, 3])


def test_krippendorff_alpha_on_a_hand_checked_case() -> None:
    # units (1,1), (2,3), (3,3) and a lone value; interval distance (c - k)^2.
    # Pairable values 1,1,2,3,3,3 (n = 6). D_o = (1/6) * (1 + 1) / (2 - 1) = 1/3.
    # D_e = sum over ordered pairs of all values / (n (n - 1)) = 2 * (6 * 33 - 13^2) / 30 = 29/15.
    # alpha = 1 - D_o / D_e = 1 - 5/29 = 24/29.
    units = {"u1": {"a": 1, "b": 1}, "u2": {"a": 2, "b": 3}, "u3": {"a": 3, "b": 3},
             "u4": {"a": 5}}
    result = stats.krippendorff_alpha(units)
    assert result.alpha == pytest.approx(24 / 29, abs=1e-12)
    assert (result.units, result.values, result.annotators) == (3, 6, 2)
    assert math.isnan(stats.krippendorff_alpha({"u1": {"a": 2, "b": 2}}).alpha)
    assert stats.krippendorff_alpha({"u1": {"a": 2}}).units == 0


def _alpha_by_formula(units: dict[str, dict[str, float]]) -> float:
    """Interval alpha written out from the definition (pairable values, ordered pairs)."""
    pairable = [list(v.values()) for v in units.values() if len(v) >= 2]
    values = np.concatenate([np.asarray(v, float) for v in pairable])
    n = len(values)
    observed = sum(((np.subtract.outer(v, v)) ** 2).sum() / (len(v) - 1)
                   for v in map(np.asarray, pairable)) / n
    expected = (np.subtract.outer(values, values) ** 2).sum() / (n * (n - 1))
    return 1 - observed / expected


@pytest.mark.parametrize("seed", range(4))
def test_krippendorff_alpha_agrees_with_the_definition_on_random_data(seed: int) -> None:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 21, 30)
    units = {}
    for k, value in enumerate(truth):
        raters = rng.choice(["a", "b", "c", "d"], size=int(rng.integers(1, 5)), replace=False)
        units[f"u{k}"] = {r: float(np.clip(value + rng.integers(-3, 4), 0, 20)) for r in raters}
    import krippendorff

    found = stats.krippendorff_alpha(units).alpha
    assert found == pytest.approx(_alpha_by_formula(units), abs=1e-9)
    matrix = np.array([[units[u].get(r, np.nan) for u in units] for r in "abcd"])
    package = krippendorff.alpha(reliability_data=matrix, level_of_measurement="interval")
    assert found == pytest.approx(package, abs=1e-12)
