"""Kappas against reference implementations (scikit-learn, statsmodels) and their definitions."""

from __future__ import annotations

import math

import numpy as np
import pytest
from refig_toolkit_analysis import stats
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats import inter_rater

CHOICES = np.array(["first", "tie", "second"])


def _raters(rng: np.random.Generator, n: int, agree: float) -> tuple[list[str], list[str]]:
    a = rng.choice(CHOICES, n, p=[0.5, 0.2, 0.3])
    b = np.where(rng.random(n) < agree, a, rng.choice(CHOICES, n))
    return list(a), list(b)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cohen_kappa_matches_sklearn_and_statsmodels(seed: int) -> None:
    a, b = _raters(np.random.default_rng(seed), 80, 0.6)
    result = stats.cohen_kappa(a, b, resamples=0)
    assert result.kappa == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)
    table = np.array(
        [
            [sum(x == i and y == j for x, y in zip(a, b, strict=True)) for j in CHOICES]
            for i in CHOICES
        ]
    )
    assert result.kappa == pytest.approx(inter_rater.cohens_kappa(table).kappa, abs=1e-12)
    assert result.observed == pytest.approx(np.mean(np.array(a) == np.array(b)))
    assert math.isnan(result.low) and result.n == 80


def test_cohen_kappa_undefined_when_one_category() -> None:
    result = stats.cohen_kappa(["tie"] * 5, ["tie"] * 5, resamples=50)
    assert math.isnan(result.kappa) and result.dropped == 50


@pytest.mark.parametrize("raters", [2, 3, 5])
def test_fleiss_kappa_matches_statsmodels_with_equal_raters(raters: int) -> None:
    rng = np.random.default_rng(raters)
    counts = np.array([rng.multinomial(raters, [0.5, 0.2, 0.3]) for _ in range(60)])
    counts[:20] = 0
    counts[:20, 0] = raters  # some consensus so kappa is not near zero
    result = stats.fleiss_kappa(counts, resamples=0)
    assert result.kappa == pytest.approx(inter_rater.fleiss_kappa(counts), abs=1e-12)


def test_fleiss_kappa_with_varying_raters_follows_gwet() -> None:
    """Gwet's generalisation, evaluated from its definition item by item."""
    rng = np.random.default_rng(7)
    counts = np.array([rng.multinomial(rng.integers(1, 5), [0.6, 0.1, 0.3]) for _ in range(40)])
    counts = np.vstack([counts, np.zeros((1, 3), dtype=int)])  # an unrated row is ignored
    r = counts.sum(axis=1)
    rated, multi = r >= 1, r >= 2
    agree = [
        sum(c * (c - 1) for c in row) / (n * (n - 1))
        for row, n in zip(counts, r, strict=True)
        if n >= 2
    ]
    pi = (counts[rated] / r[rated, None]).mean(axis=0)
    expected = float((pi**2).sum())
    kappa = (np.mean(agree) - expected) / (1 - expected)
    result = stats.fleiss_kappa(counts, resamples=0)
    assert result.kappa == pytest.approx(kappa, abs=1e-12)
    assert result.observed == pytest.approx(np.mean(agree)) and result.n == int(rated.sum())
    assert multi.sum() < rated.sum()  # the case the generalisation exists for


def test_kappa_cluster_bootstrap_equals_a_plain_loop() -> None:
    """Each resample draws whole clusters (the rows of resample_indices) and recomputes kappa."""
    rng = np.random.default_rng(11)
    a, b = _raters(rng, 30, 0.7)
    clusters = [f"fig-{i // 3}" for i in range(30)]
    result = stats.cohen_kappa(a, b, clusters=clusters, resamples=300, seed=5)
    labels = sorted(set(clusters))
    members = {g: [i for i, c in enumerate(clusters) if c == g] for g in labels}
    draws = []
    for rows in stats.resample_indices(len(labels), 300, 5):
        for row in rows:
            picked = [i for g in row for i in members[labels[g]]]
            draws.append(cohen_kappa_score([a[i] for i in picked], [b[i] for i in picked]))
    finite = np.array([d for d in draws if np.isfinite(d)])
    low, high = np.quantile(finite, [0.025, 0.975])
    assert (result.low, result.high) == pytest.approx((low, high), abs=1e-12)
    assert result.clusters == 10 and result.low < result.kappa < result.high


def test_kappa_inputs_are_checked() -> None:
    with pytest.raises(ValueError, match="same items"):
        stats.cohen_kappa(["A"], ["A", "B"])
    with pytest.raises(ValueError, match="rated at least twice"):
        stats.fleiss_kappa([[1, 0, 0], [0, 1, 0]])
    with pytest.raises(ValueError, match="non-negative"):
        stats.fleiss_kappa([[2, -1, 0]])
