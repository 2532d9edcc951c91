"""``axis_weight_correlations``: Pearson's r of reweighted configuration means against ratings,
checked against scipy over weights written out by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from refig_toolkit_analysis import stats
from scipy import stats as sps


def test_matches_scipy_on_hand_weights_with_missing_cells() -> None:
    rng = np.random.default_rng(7)
    top = np.array([20.0, 30.0, 15.0, 25.0, 10.0])
    scores = rng.uniform(0, 1, size=(6, 9, 5)) * top
    scores[0, 2, 1] = np.nan  # an incomplete task drops out of that configuration's mean
    scores[3, :, :] = np.nan  # a configuration never scored
    ratings = rng.normal(1000, 80, size=6)
    ratings[5] = np.nan  # a configuration without Elo
    weights = np.array([0.0, 12.5, 40.0])
    found = stats.axis_weight_correlations(scores, top, ratings, weights)
    keep = [0, 1, 2, 4]
    means = {c: np.mean([scores[c, t] / top for t in range(9)
                         if np.isfinite(scores[c, t]).all()], axis=0) for c in keep}
    for k, w in enumerate(weights):
        for e in range(5):
            v = [w if a == e else top[a] * (100 - w) / (100 - top[e]) for a in range(5)]
            x = [float(means[c] @ v) for c in keep]
            assert found[k, e] == pytest.approx(sps.pearsonr(x, ratings[keep]).statistic)


def test_too_few_or_constant_is_nan() -> None:
    top = np.array([50.0, 50.0])
    scores = np.ones((3, 4, 2)) * 10
    assert np.isnan(stats.axis_weight_correlations(scores, top, [1, 2, 3], [10.0])).all()
    two = stats.axis_weight_correlations(scores[:2] * [[[1]], [[2]]], top, [1, 2], [10.0])
    assert np.isnan(two).all()
    with pytest.raises(ValueError, match="one per configuration"):
        stats.axis_weight_correlations(scores, top, [1, 2], [10.0])
    assert math.isclose(stats.ELO_SWEEP_SHARES[-1], 0.5)
