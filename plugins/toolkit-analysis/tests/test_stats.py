"""refig_toolkit_analysis.stats against independent references (scipy, pingouin, statsmodels)
and brute force."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pingouin
import pytest
from refig_toolkit_analysis import stats
from refig_toolkit_analysis.stats import Comparison
from scipy import optimize
from scipy import stats as sps
from scipy.sparse.csgraph import connected_components
from statsmodels.stats.proportion import proportion_confint


def _quantiles(values: list[float], level: float = 0.95) -> tuple[float, float]:
    alpha = 1 - level
    return float(np.quantile(values, alpha / 2)), float(np.quantile(values, 1 - alpha / 2))


# --- bootstraps ---------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [3, 17])
def test_bootstrap_ci_is_the_percentile_of_resampled_means(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = rng.gamma(2.0, 3.0, size=int(rng.integers(5, 60)))
    got = stats.bootstrap_ci(x, resamples=500, seed=seed)
    means = [
        float(np.mean([x[i] for i in row]))
        for chunk in stats.resample_indices(x.size, 500, seed)
        for row in chunk
    ]
    low, high = _quantiles(means)
    assert isinstance(got, stats.Interval)
    assert got.estimate == pytest.approx(x.mean())
    assert (got.low, got.high) == pytest.approx((low, high), abs=1e-12)
    assert got.n == x.size


def test_bootstrap_ci_agrees_with_scipy_percentile_bootstrap() -> None:
    rng = np.random.default_rng(11)
    x = rng.normal(40, 12, size=80)
    ours = stats.bootstrap_ci(x, resamples=20_000, seed=1)
    ref = sps.bootstrap(
        (x,), np.mean, n_resamples=20_000, method="percentile", random_state=2
    ).confidence_interval
    se = x.std(ddof=1) / math.sqrt(x.size)
    assert isinstance(ours, stats.Interval)
    # Two independent Monte Carlo estimates of the same quantiles: agree within 0.15 SE.
    assert abs(ours.low - ref.low) < 0.15 * se
    assert abs(ours.high - ref.high) < 0.15 * se


def test_bootstrap_columns_share_resamples_and_match_single_columns() -> None:
    rng = np.random.default_rng(5)
    x = rng.normal(size=(30, 4))
    together = stats.bootstrap_ci(x, resamples=300, seed=9)
    assert isinstance(together, list) and len(together) == 4
    for j in range(4):
        alone = stats.bootstrap_ci(x[:, j], resamples=300, seed=9)
        assert isinstance(alone, stats.Interval)
        got = together[j]
        assert (alone.estimate, alone.low, alone.high) == pytest.approx(
            (got.estimate, got.low, got.high), abs=1e-12
        )


def test_paired_bootstrap_uses_one_index_row_for_both_sides() -> None:
    rng = np.random.default_rng(8)
    a = rng.normal(50, 10, size=40)
    b = a - 3 + rng.normal(0, 1, size=40)  # strongly paired: the paired interval must be narrow
    got = stats.paired_bootstrap_ci(a, b, resamples=400, seed=4)
    diffs = [
        float(np.mean(a[row]) - np.mean(b[row]))
        for chunk in stats.resample_indices(40, 400, 4)
        for row in chunk
    ]
    assert isinstance(got, stats.Interval)
    assert (got.low, got.high) == pytest.approx(_quantiles(diffs), abs=1e-12)
    assert got.estimate == pytest.approx(a.mean() - b.mean())
    unpaired_width = 2 * 1.96 * math.sqrt(a.var(ddof=1) / 40 + b.var(ddof=1) / 40)
    assert got.high - got.low < unpaired_width / 3
    assert got.low > 2.0


def test_cluster_bootstrap_resamples_whole_clusters() -> None:
    rng = np.random.default_rng(21)
    clusters = [f"fig{int(c)}" for c in rng.integers(0, 12, size=45)]
    x = rng.normal(size=45) + np.array([hash(c) % 7 for c in clusters])
    got = stats.cluster_bootstrap_ci(x, clusters, resamples=300, seed=2)
    labels = sorted(set(clusters))
    members = {c: x[[k for k, cc in enumerate(clusters) if cc == c]] for c in labels}
    means = []
    for chunk in stats.resample_indices(len(labels), 300, 2):
        for row in chunk:
            means.append(float(np.concatenate([members[labels[i]] for i in row]).mean()))
    assert isinstance(got, stats.Interval)
    assert (got.low, got.high) == pytest.approx(_quantiles(means), abs=1e-12)
    assert got.n == len(labels)
    assert got.estimate == pytest.approx(x.mean())


def test_bootstraps_refuse_missing_values_and_bad_levels() -> None:
    with pytest.raises(ValueError, match="NaN"):
        stats.bootstrap_ci([1.0, math.nan, 2.0])
    with pytest.raises(ValueError, match="level"):
        stats.bootstrap_ci([1.0, 2.0], level=1.2)
    with pytest.raises(ValueError, match="shape"):
        stats.paired_bootstrap_ci([1.0, 2.0], [1.0, 2.0, 3.0])


# --- Bradley-Terry ------------------------------------------------------------------------------


def _random_comparisons(seed: int, m: int = 6, n: int = 300) -> list[Comparison]:
    rng = np.random.default_rng(seed)
    names = [f"cfg{k}" for k in range(m)]
    strength = rng.normal(0, 1, size=m)
    found = []
    for k in range(n):
        i, j = rng.choice(m, size=2, replace=False)
        p = 1 / (1 + math.exp(-(strength[i] - strength[j])))
        u = rng.random()
        score = 0.5 if u < 0.15 else (1.0 if rng.random() < p else 0.0)
        found.append(Comparison(names[i], names[j], score, f"task{k // 3}"))
    return found


def _negative_loglik(theta: np.ndarray, comps: list[Comparison], items: tuple[str, ...]) -> float:
    pos = {name: k for k, name in enumerate(items)}
    total = 0.0
    for c in comps:
        d = theta[pos[c.left]] - theta[pos[c.right]]
        total += c.score * np.logaddexp(0, -d) + (1 - c.score) * np.logaddexp(0, d)
    return total


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_bradley_terry_is_the_maximum_likelihood(seed: int) -> None:
    comps = _random_comparisons(seed)
    result = stats.bradley_terry_elo(comps, resamples=50, seed=seed)
    assert result.exists
    theta = result.strength
    assert theta.mean() == pytest.approx(0, abs=1e-12)
    assert result.rating.mean() == pytest.approx(1000.0)
    assert result.rating == pytest.approx(1000 + theta * 400 / math.log(10))
    # Gradient of the log-likelihood is zero at the optimum, computed comparison by comparison.
    pos = {name: k for k, name in enumerate(result.items)}
    grad = np.zeros(len(result.items))
    for c in comps:
        p = 1 / (1 + math.exp(-(theta[pos[c.left]] - theta[pos[c.right]])))
        grad[pos[c.left]] += c.score - p
        grad[pos[c.right]] -= c.score - p
    assert np.abs(grad).max() < 1e-8
    # And a general-purpose optimiser finds the same maximum.
    ref = optimize.minimize(
        _negative_loglik,
        np.zeros(len(result.items)),
        args=(comps, result.items),
        method="BFGS",
        options={"gtol": 1e-9},
    )
    ref_theta = ref.x - ref.x.mean()
    assert theta == pytest.approx(ref_theta, abs=1e-4)


def test_bradley_terry_ignores_presentation_order() -> None:
    comps = _random_comparisons(7)
    rng = np.random.default_rng(0)
    flipped = [
        Comparison(c.right, c.left, 1 - c.score, c.cluster) if rng.random() < 0.5 else c
        for c in comps
    ]
    rng.shuffle(flipped)
    a = stats.bradley_terry_elo(comps, resamples=200, seed=5)
    b = stats.bradley_terry_elo(flipped, resamples=200, seed=5)
    assert a.rating == pytest.approx(b.rating, abs=1e-9)
    assert a.low == pytest.approx(b.low, abs=1e-9)
    assert a.high == pytest.approx(b.high, abs=1e-9)


def test_bradley_terry_scale_and_ties() -> None:
    three_to_one = [("a", "b", 1.0)] * 3 + [("a", "b", 0.0)]
    result = stats.bradley_terry_elo(three_to_one, resamples=10)
    gap = result.rating[0] - result.rating[1]
    assert gap == pytest.approx(400 * math.log10(3))
    ties = stats.bradley_terry_elo([("a", "b", 0.5)] * 4 + [("b", "c", 0.5)] * 2, resamples=10)
    assert ties.rating == pytest.approx([1000.0] * 3)
    assert list(ties.ties) == [4, 6, 2]


def test_bradley_terry_reports_when_the_maximum_does_not_exist() -> None:
    comps = [("a", "b", 1.0), ("a", "c", 1.0), ("b", "c", 1.0), ("c", "b", 1.0)]
    result = stats.bradley_terry_elo(comps, resamples=20)
    assert not result.exists
    assert np.isnan(result.rating).all()
    assert "{a} never lost or tied" in result.reason


def test_bradley_terry_drops_resamples_without_a_maximum_and_counts_them() -> None:
    # Few clusters: many resamples lose a direction of some pair, so the MLE does not exist.
    comps = [
        Comparison("a", "b", 1.0, "t1"),
        Comparison("b", "a", 1.0, "t2"),
        Comparison("b", "c", 1.0, "t3"),
        Comparison("c", "b", 0.5, "t4"),
        Comparison("a", "c", 1.0, "t5"),
        Comparison("c", "a", 1.0, "t6"),
        Comparison("a", "b", 0.5, "t7"),
    ]
    result = stats.bradley_terry_elo(comps, resamples=200, seed=3)
    items = result.items
    labels = sorted({c.cluster for c in comps})
    kept_ratings = []
    dropped = 0
    for chunk in stats.resample_indices(len(labels), 200, 3):
        for row in chunk:
            drawn = [c for i in row for c in comps if c.cluster == labels[i]]
            credit = np.zeros((3, 3))
            for c in drawn:
                credit[items.index(c.left), items.index(c.right)] += c.score
                credit[items.index(c.right), items.index(c.left)] += 1 - c.score
            count, _ = connected_components(credit > 0, directed=True, connection="strong")
            if count > 1:
                dropped += 1
                continue
            fit = optimize.minimize(
                _negative_loglik,
                np.zeros(3),
                args=(drawn, items),
                method="BFGS",
                options={"gtol": 1e-10},
            )
            kept_ratings.append(1000 + (fit.x - fit.x.mean()) * 400 / math.log(10))
    assert result.dropped == dropped > 0
    kept = np.array(kept_ratings)
    low = np.quantile(kept, 0.025, axis=0)
    high = np.quantile(kept, 0.975, axis=0)
    assert result.low == pytest.approx(low, abs=0.05)
    assert result.high == pytest.approx(high, abs=0.05)


# --- agreement ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("seed", "n", "k"), [(1, 12, 3), (2, 30, 2), (3, 8, 5)])
def test_icc_2_1_matches_pingouin(seed: int, n: int, k: int) -> None:
    rng = np.random.default_rng(seed)
    ratings = rng.normal(size=(n, 1)) * 3 + rng.normal(size=(1, k)) + rng.normal(size=(n, k))
    ours = stats.icc_2_1(ratings)
    frame = pd.DataFrame(
        [(t, r, ratings[t, r]) for t in range(n) for r in range(k)],
        columns=["target", "rater", "score"],
    )
    table = pingouin.intraclass_corr(frame, targets="target", raters="rater", ratings="score")
    row = (
        table.set_index("Type").loc["ICC2"]
        if "ICC2" in set(table["Type"])
        else (table.set_index("Type").loc["ICC(A,1)"])
    )
    assert ours.icc == pytest.approx(row["ICC"], abs=1e-9)
    assert (ours.low, ours.high) == pytest.approx(tuple(row["CI95"]), abs=1e-2)
    assert (ours.n, ours.k) == (n, k)


def _tau_b(a: np.ndarray, b: np.ndarray) -> float:
    conc = disc = tie_a = tie_b = 0
    for i in range(a.size):
        for j in range(i + 1, a.size):
            da, db = np.sign(a[i] - a[j]), np.sign(b[i] - b[j])
            if da == 0 and db == 0:
                continue
            if da == 0:
                tie_a += 1
            elif db == 0:
                tie_b += 1
            elif da == db:
                conc += 1
            else:
                disc += 1
    return (conc - disc) / math.sqrt((conc + disc + tie_a) * (conc + disc + tie_b))


@pytest.mark.parametrize("seed", [4, 5])
def test_rank_agreement_matches_pingouin_and_the_tau_b_definition(seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = np.round(rng.normal(size=25), 1)  # rounding makes ties on both sides
    b = np.round(a + rng.normal(size=25), 1)
    ours = stats.rank_agreement(a, b, pearson=True)
    assert ours.spearman == pytest.approx(pingouin.corr(a, b, method="spearman")["r"].iloc[0])
    assert ours.kendall == pytest.approx(pingouin.corr(a, b, method="kendall")["r"].iloc[0])
    assert ours.pearson == pytest.approx(pingouin.corr(a, b, method="pearson")["r"].iloc[0])
    assert ours.kendall == pytest.approx(_tau_b(a, b))
    constant = stats.rank_agreement([1, 1, 1], [1, 2, 3])
    assert math.isnan(constant.spearman) and constant.pearson is None


@pytest.mark.parametrize(("k", "n"), [(0, 10), (3, 10), (10, 10), (57, 80), (1, 1)])
def test_wilson_interval_matches_statsmodels(k: int, n: int) -> None:
    low, high = proportion_confint(k, n, alpha=0.05, method="wilson")
    assert stats.wilson_interval(k, n) == pytest.approx((low, high), abs=1e-12)
    low, high = proportion_confint(k, n, alpha=0.2, method="wilson")
    assert stats.wilson_interval(k, n, level=0.8) == pytest.approx((low, high), abs=1e-12)
    assert all(math.isnan(v) for v in stats.wilson_interval(0, 0))


def test_direction_agreement_by_bucket() -> None:
    rng = np.random.default_rng(9)
    margins = np.round(rng.normal(0, 12, size=200))
    prefs = rng.choice(["A", "B", "tie"], size=200, p=[0.45, 0.4, 0.15])
    edges = (0.0, 5.0, 10.0, 20.0, math.inf)
    got = stats.direction_agreement(margins, list(prefs), edges)
    assert got.ties == int((prefs == "tie").sum())
    for bucket, (lo, hi) in zip(got.buckets, itertools.pairwise(edges), strict=True):
        decisive = matches = 0
        for m, p in zip(margins, prefs, strict=True):
            if p == "tie" or not lo <= abs(m) < hi:
                continue
            decisive += 1
            matches += (m > 0 and p == "A") or (m < 0 and p == "B")
        assert (bucket.decisive, bucket.matches) == (decisive, matches)
        assert (bucket.ci_low, bucket.ci_high) == pytest.approx(
            proportion_confint(matches, decisive, method="wilson")
        )
    assert got.overall.decisive == sum(b.decisive for b in got.buckets)
    assert got.overall.matches == sum(b.matches for b in got.buckets)
    zero = stats.direction_agreement([0.0, 0.0], ["A", "B"], (0, math.inf))
    assert zero.overall.matches == 0 and zero.overall.decisive == 2


# --- weight sensitivity -------------------------------------------------------------------------


def _paired_effect(
    scores: np.ndarray, top: np.ndarray, axis: int, c1: int, c2: int, w: float
) -> float:
    """Brute force: reweight every task's total, then average the per-task differences."""
    total = top.sum()
    diffs = []
    for t in range(scores.shape[1]):
        if not (np.isfinite(scores[c1, t]).all() and np.isfinite(scores[c2, t]).all()):
            continue
        tot = []
        for c in (c1, c2):
            value = 0.0
            for a in range(top.size):
                weight = w if a == axis else top[a] * (total - w) / (total - top[axis])
                value += weight * scores[c, t, a] / top[a]
            tot.append(value)
        diffs.append(tot[0] - tot[1])
    return float(np.mean(diffs))


def test_weight_sign_threshold_is_exact() -> None:
    rng = np.random.default_rng(12)
    top = np.array([20.0, 30.0, 15.0, 25.0, 10.0])
    base = rng.uniform(0.2, 0.9, size=(4, 40, 5)) * top
    # Configuration 1 is better on editability and worse elsewhere than configuration 0.
    base[1, :, 3] = np.minimum(top[3], base[0, :, 3] + 8)
    base[1, :, [0, 1, 2, 4]] = base[0, :, [0, 1, 2, 4]] * 0.85
    base[2, 5, 1] = np.nan  # a missing score drops the task from pairs that include config 2
    pairs = [(1, 0), (2, 3), (0, 2)]
    sweep = stats.weight_sign_threshold(base, top, axis=3, pairs=pairs)
    assert list(sweep.pair_tasks) == [40, 39, 39]
    for p, (c1, c2) in enumerate(pairs):
        assert sweep.effects_default[p] == pytest.approx(_paired_effect(base, top, 3, c1, c2, 25.0))
        for k, w in enumerate(sweep.weights):
            assert sweep.effects[k, p] == pytest.approx(_paired_effect(base, top, 3, c1, c2, w))
        w_star = sweep.thresholds[p]
        if math.isnan(w_star):
            grid = np.linspace(0, 100, 201)
            signs = {np.sign(_paired_effect(base, top, 3, c1, c2, w)) for w in grid}
            assert len(signs - {0.0}) == 1
            continue
        assert _paired_effect(base, top, 3, c1, c2, w_star) == pytest.approx(0, abs=1e-9)
        below = _paired_effect(base, top, 3, c1, c2, w_star - 0.01)
        above = _paired_effect(base, top, 3, c1, c2, w_star + 0.01)
        assert np.sign(below) == -np.sign(above) != 0
    assert not math.isnan(sweep.thresholds[0]) and sweep.thresholds[0] < 25
    # Rank correlation with the default ranking: 1 at the default weight, scipy's elsewhere.
    at_default = int(np.flatnonzero(sweep.weights == 25)[0])
    assert sweep.spearman[at_default] == pytest.approx(1.0)
    means = np.array(
        [
            np.nanmean(np.where(np.isfinite(base[c]).all(1)[:, None], base[c], np.nan), axis=0)
            for c in range(4)
        ]
    )
    for k, w in enumerate(sweep.weights):
        weights = [w if a == 3 else top[a] * (100 - w) / 75 for a in range(5)]
        totals = (means / top) @ np.array(weights)
        assert sweep.spearman[k] == pytest.approx(sps.spearmanr(totals, means.sum(1)).statistic)
        assert sweep.kendall[k] == pytest.approx(sps.kendalltau(totals, means.sum(1)).statistic)
