"""The statistics of a refig report, each documented with its exact definition (numpy and scipy).

Resampling functions draw whole matrices of resample indices from a seeded
:class:`numpy.random.Generator` and turn them into count matrices, so a bootstrap of a mean is one
matrix product instead of a Python loop; ``docs/statistics.md`` explains every choice made here.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import sparse, special
from scipy import stats as sps

DEFAULT_RESAMPLES = 10_000
DEFAULT_LEVEL = 0.95
ELO_MEAN = 1000.0
#: Elo points per natural unit of Bradley-Terry strength: a 400-point gap is 10:1 odds.
ELO_SCALE = 400.0 / math.log(10.0)
#: Index matrices are drawn in chunks of at most this many entries to bound memory.
_CHUNK_ENTRIES = 1 << 22

Seed = int | np.random.Generator | None
FloatArray = NDArray[np.float64]


def _rng(seed: Seed) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def _check_level(level: float) -> None:
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie strictly between 0 and 1, not {level}")


@dataclass(frozen=True)
class Interval:
    """A point estimate with a two-sided interval at ``level``; ``n`` units were resampled."""

    estimate: float
    low: float
    high: float
    level: float = DEFAULT_LEVEL
    n: int = 0

    def as_dict(self) -> dict[str, float | int]:
        return {
            "estimate": self.estimate,
            "low": self.low,
            "high": self.high,
            "level": self.level,
            "n": self.n,
        }


# --- resampling ---------------------------------------------------------------------------------


def resample_indices(n: int, resamples: int, seed: Seed = 0) -> Iterator[NDArray[np.int32]]:
    """Row ``b`` of the index matrix: ``n`` indices drawn uniformly with replacement in ``[0, n)``.

    Rows come in chunks (at most ``2**22`` entries each) drawn one after another from the generator;
    every bootstrap below uses exactly these rows, so a plain loop over them reproduces its result.
    """
    if n < 1:
        raise ValueError("cannot resample an empty sample")
    if n >= 2**31:
        raise ValueError("too many units to resample")
    rng = _rng(seed)
    rows = max(1, _CHUNK_ENTRIES // n)
    for start in range(0, resamples, rows):
        yield rng.integers(0, n, size=(min(rows, resamples - start), n), dtype=np.int32)


def _counts(indices: NDArray[np.int32], n: int) -> sparse.csr_matrix:
    """How often each unit appears in each resample, as a sparse (resamples, n) matrix.

    Row ``b`` holds a 1 at each drawn index; repeated indices are summed by every product with
    it, so ``counts @ x`` is the per-resample sum of ``x`` without building a dense count matrix.
    """
    b = indices.shape[0]
    indptr = np.arange(0, b * n + 1, n, dtype=np.int64)
    return sparse.csr_matrix((np.ones(b * n), indices.ravel(), indptr), shape=(b, n))


def _cluster_groups(clusters: Sequence[Hashable] | None, n: int) -> NDArray[np.int64]:
    """Each item's cluster as an index (every item its own cluster when ``clusters`` is None)."""
    if clusters is None:
        return np.arange(n, dtype=np.int64)
    if len(clusters) != n:
        raise ValueError(f"{len(clusters)} cluster labels for {n} items")
    _, group = np.unique(np.asarray([str(c) for c in clusters]), return_inverse=True)
    return group.astype(np.int64)


def _percentile_bounds(dist: FloatArray, level: float) -> tuple[FloatArray, FloatArray]:
    """Lower and upper ``(1 - level) / 2`` quantiles per column (numpy's linear interpolation)."""
    alpha = 1.0 - level
    low, high = np.quantile(dist, [alpha / 2.0, 1.0 - alpha / 2.0], axis=0)
    return low, high


def _as_columns(scores: ArrayLike, name: str) -> tuple[FloatArray, bool]:
    x = np.asarray(scores, dtype=np.float64)
    if x.ndim not in (1, 2):
        raise ValueError(f"{name} must be a vector or a (units, columns) matrix")
    if x.shape[0] < 1:
        raise ValueError(f"{name} is empty")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{name} holds NaN or infinite values; drop missing units first")
    return (x[:, None] if x.ndim == 1 else x), x.ndim == 1


def _intervals(
    estimate: FloatArray, dist: FloatArray, level: float, n: int, vector: bool
) -> Interval | list[Interval]:
    low, high = _percentile_bounds(dist, level)
    found = [
        Interval(float(e), float(lo), float(hi), level, n)
        for e, lo, hi in zip(estimate, low, high, strict=True)
    ]
    return found[0] if vector else found


def bootstrap_ci(
    scores: ArrayLike,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    level: float = DEFAULT_LEVEL,
    seed: Seed = 0,
) -> Interval | list[Interval]:
    """Percentile bootstrap interval of the mean over tasks.

    Definition: with ``x_1..x_n`` the per-task scores, resample ``b`` takes the index row ``I_b``
    of :func:`resample_indices` and computes ``m_b = mean(x[I_b])``; the interval is the
    ``(1-level)/2`` and ``(1+level)/2`` quantiles of ``m_1..m_B`` (numpy's default linear
    interpolation), the estimate the plain sample mean. A ``(n, k)`` matrix gives one interval per
    column, all columns sharing the same resampled tasks. Missing values must be removed first.
    """
    _check_level(level)
    x, vector = _as_columns(scores, "scores")
    n = x.shape[0]
    dist = np.concatenate(
        [_counts(idx, n) @ x / n for idx in resample_indices(n, resamples, seed)], axis=0
    )
    return _intervals(x.mean(axis=0), dist, level, n, vector)


def paired_bootstrap_ci(
    a: ArrayLike,
    b: ArrayLike,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    level: float = DEFAULT_LEVEL,
    seed: Seed = 0,
) -> Interval | list[Interval]:
    """Percentile bootstrap interval of the paired effect ``mean(a) - mean(b)`` over tasks.

    Definition: ``a[i]`` and ``b[i]`` are two configurations' scores on the same task ``i``. Each
    resample uses one index row ``I`` for both sides, ``d = mean(a[I]) - mean(b[I])``, so the
    interval reflects the within-task pairing (it is the bootstrap of the per-task differences).
    """
    xa = np.asarray(a, dtype=np.float64)
    xb = np.asarray(b, dtype=np.float64)
    if xa.shape != xb.shape:
        raise ValueError(f"paired samples differ in shape: {xa.shape} and {xb.shape}")
    # mean(a[I]) - mean(b[I]) = mean((a - b)[I]): the same index rows, the same numbers.
    return bootstrap_ci(xa - xb, resamples=resamples, level=level, seed=seed)


def cluster_bootstrap_ci(
    scores: ArrayLike,
    clusters: Sequence[Hashable],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    level: float = DEFAULT_LEVEL,
    seed: Seed = 0,
) -> Interval | list[Interval]:
    """Percentile bootstrap interval of the mean over tasks, resampling whole source figures.

    Definition: the ``G`` distinct cluster labels are resampled with replacement (index rows of
    :func:`resample_indices` over clusters); a resample's statistic is the mean over every task of
    every drawn cluster, counted as often as its cluster was drawn:
    ``sum_g c_g * S_g / sum_g c_g * n_g`` with ``S_g`` the cluster's score sum and ``n_g`` its size.
    The estimate is the plain mean over tasks; ``n`` in the result counts clusters. With one task
    per cluster this is :func:`bootstrap_ci` over the clusters.
    """
    _check_level(level)
    x, vector = _as_columns(scores, "scores")
    group = _cluster_groups(clusters, x.shape[0])
    g = int(group.max()) + 1
    sums = np.zeros((g, x.shape[1]))
    np.add.at(sums, group, x)
    sizes = np.bincount(group, minlength=g).astype(np.float64)
    dists = []
    for idx in resample_indices(g, resamples, seed):
        counts = _counts(idx, g)
        dists.append((counts @ sums) / (counts @ sizes)[:, None])
    return _intervals(x.mean(axis=0), np.concatenate(dists, axis=0), level, g, vector)


# --- Bradley-Terry on the Elo scale -------------------------------------------------------------


class Comparison(NamedTuple):
    """One pairwise comparison: ``score`` is the left item's result (1 win, 0.5 tie, 0 loss)."""

    left: str
    right: str
    score: float
    cluster: Hashable | None = None


@dataclass(frozen=True)
class EloResult:
    """Bradley-Terry strengths of ``items`` on the Elo scale, with cluster-bootstrap intervals.

    ``strength`` is in natural units with mean zero, ``rating = 1000 + strength * 400 / ln 10``.
    ``dropped`` resamples had no maximum-likelihood estimate and were left out of the intervals;
    ``exists`` is False (and the ratings NaN) when the full data have none, ``reason`` says why.
    """

    items: tuple[str, ...]
    rating: FloatArray
    low: FloatArray
    high: FloatArray
    strength: FloatArray
    games: NDArray[np.int64]
    wins: FloatArray
    ties: NDArray[np.int64]
    level: float
    resamples: int
    dropped: int
    exists: bool = True
    reason: str = ""
    clusters: int = 0

    def rows(self) -> list[dict[str, Any]]:
        """One dict per item, strongest first (the standings)."""
        order = np.argsort(-np.nan_to_num(self.rating, nan=-np.inf), kind="stable")
        return [
            {
                "item": self.items[i],
                "rating": float(self.rating[i]),
                "low": float(self.low[i]),
                "high": float(self.high[i]),
                "games": int(self.games[i]),
                "wins": float(self.wins[i]),
                "ties": int(self.ties[i]),
            }
            for i in order
        ]


def _reach_all(credit: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """Per (m, m) matrix of a stack: is the digraph "i earned credit against j" strongly connected?

    Reachability by repeated squaring of ``credit | I`` (log2 m boolean products).
    """
    m = credit.shape[-1]
    reach = (credit | np.eye(m, dtype=bool)).astype(np.float64)
    for _ in range(max(1, math.ceil(math.log2(max(m, 2))))):
        reach = (reach @ reach > 0).astype(np.float64)
    return reach.reshape(reach.shape[0], -1).all(axis=1)


def _loglik(theta: FloatArray, wins: FloatArray) -> FloatArray:
    diff = theta[:, :, None] - theta[:, None, :]
    return -(wins * np.logaddexp(0.0, -diff)).sum(axis=(1, 2))


def _fit_bt(wins: FloatArray, *, max_iter: int = 100) -> FloatArray:
    """Maximum-likelihood strengths (mean zero) for a (B, m, m) stack of credit matrices.

    Damped Newton: the log-likelihood is concave with a one-dimensional null space (adding a
    constant to every strength); the step solves ``(L + 11')s = g`` with ``L`` the weighted graph
    Laplacian (minus the Hessian), which keeps the steps mean-zero, and halves a step until the
    likelihood does not fall. Callers pass only stacks whose MLE exists.
    """
    b, m, _ = wins.shape
    games = wins + wins.transpose(0, 2, 1)
    theta = np.zeros((b, m))
    loglik = _loglik(theta, wins)
    ones = np.ones((m, m))
    tol = 1e-12 * max(1.0, float(wins.sum(axis=(1, 2)).max()))  # x the comparisons
    active = np.ones(b, dtype=bool)
    for _ in range(max_iter):
        rows = np.flatnonzero(active)
        if rows.size == 0:
            break
        th, w, n = theta[rows], wins[rows], games[rows]
        p = special.expit(th[:, :, None] - th[:, None, :])
        grad = (w - n * p).sum(axis=2)
        done = np.abs(grad).max(axis=1) < tol
        active[rows[done]] = False
        keep = ~done
        if not keep.any():
            break
        rows, th, w, n, p, grad = rows[keep], th[keep], w[keep], n[keep], p[keep], grad[keep]
        weight = n * p * (1.0 - p)
        laplacian = np.zeros_like(weight)
        laplacian -= weight
        idx = np.arange(m)
        laplacian[:, idx, idx] += weight.sum(axis=2)
        step = np.linalg.solve(laplacian + ones, grad[:, :, None])[:, :, 0]
        scale = np.ones(rows.size)
        old = loglik[rows]
        for _ in range(60):
            trial = th + scale[:, None] * step
            new = _loglik(trial, w)
            worse = new < old - 1e-12 * np.abs(old)
            if not worse.any():
                break
            scale[worse] /= 2.0
        theta[rows], loglik[rows] = trial, new
    return theta - theta.mean(axis=1, keepdims=True)


def _credit_matrices(
    comparisons: Sequence[Comparison], items: tuple[str, ...]
) -> tuple[FloatArray, int]:
    """Per cluster, ``W[g, i, j]``: the credit item i earned against j (ties give 0.5 each)."""
    position = {item: k for k, item in enumerate(items)}
    labels = [
        str(c.cluster) if c.cluster is not None else f"\0{k}" for k, c in enumerate(comparisons)
    ]
    _, group = np.unique(np.asarray(labels), return_inverse=True)
    g = int(group.max()) + 1
    m = len(items)
    left = np.array([position[c.left] for c in comparisons])
    right = np.array([position[c.right] for c in comparisons])
    score = np.array([float(c.score) for c in comparisons])
    credit = np.zeros((g, m, m))
    np.add.at(credit, (group, left, right), score)
    np.add.at(credit, (group, right, left), 1.0 - score)
    return credit, g


def _no_mle_reason(credit: FloatArray, items: tuple[str, ...]) -> str:
    """Name the configurations that make the MLE fail on the full data."""
    from scipy.sparse.csgraph import connected_components

    games = credit + credit.T
    lonely = [items[i] for i in range(len(items)) if games[i].sum() == 0]
    if lonely:
        return "no comparisons for " + ", ".join(lonely)
    count, label = connected_components(credit > 0, directed=True, connection="strong")
    unbeaten = []
    for comp in range(count):
        inside = label == comp
        if not (credit[np.ix_(~inside, inside)] > 0).any():
            unbeaten.append(", ".join(items[i] for i in np.flatnonzero(inside)))
    parts = [f"{{{u}}} never lost or tied against the rest" for u in unbeaten]
    return "the maximum likelihood does not exist: " + "; ".join(parts)


def bradley_terry_elo(
    comparisons: Iterable[Comparison | tuple[Any, ...]],
    *,
    items: Sequence[str] | None = None,
    resamples: int = 1000,
    level: float = DEFAULT_LEVEL,
    seed: Seed = 0,
) -> EloResult:
    """Bradley-Terry strengths by maximum likelihood, on the Elo scale, with cluster bootstrap.

    Definition: ``P(i beats j) = 1 / (1 + exp(-(s_i - s_j)))``. A comparison with left score ``y``
    (1, 0.5 or 0) contributes ``y log P(l beats r) + (1 - y) log P(r beats l)``: a tie is half a
    win to each side, and swapping left and right (with ``y -> 1 - y``) leaves the likelihood
    unchanged, so the presentation order cannot matter. Strengths maximise the summed log-likelihood
    subject to ``mean(s) = 0`` and are reported as ``1000 + s * 400 / ln 10``.

    The maximum exists iff the digraph with an edge i -> j whenever i earned any credit (win or
    tie) against j is strongly connected (Zermelo 1929; Ford 1957). Without it, e.g. when an item
    won every comparison it took part in, ``exists`` is False and ratings are NaN.

    Intervals: ``resamples`` cluster-bootstrap resamples draw clusters (``Comparison.cluster``,
    the source figure; each comparison is its own cluster when None) with replacement and refit.
    Resamples in which the maximum does not exist are dropped and counted in ``dropped``; the
    percentile interval uses the rest. Dropping removes the most extreme resamples, so when
    ``dropped`` is more than a few percent the intervals are too narrow, and reports say so.
    """
    _check_level(level)
    found = [c if isinstance(c, Comparison) else Comparison(*c) for c in comparisons]
    for c in found:
        if c.left == c.right:
            raise ValueError(f"a comparison of {c.left!r} with itself")
        if not 0.0 <= float(c.score) <= 1.0:
            raise ValueError(f"comparison score {c.score} is not in [0, 1]")
    names = (
        tuple(items)
        if items is not None
        else tuple(sorted({*(c.left for c in found), *(c.right for c in found)}))
    )
    m = len(names)
    unknown = {c.left for c in found} | {c.right for c in found}
    if not unknown <= set(names):
        raise ValueError(f"comparisons name items not in items: {sorted(unknown - set(names))}")
    if m < 2 or not found:
        raise ValueError("Bradley-Terry needs comparisons among at least two items")
    credit, g = _credit_matrices(found, names)
    total = credit.sum(axis=0)
    games = (total + total.T).sum(axis=1)
    wins = total.sum(axis=1)
    ties = np.zeros(m, dtype=np.int64)
    position = {item: k for k, item in enumerate(names)}
    for c in found:
        if c.score == 0.5:
            ties[position[c.left]] += 1
            ties[position[c.right]] += 1
    nan = np.full(m, np.nan)
    unfitted = EloResult(
        items=names,
        rating=nan,
        low=nan,
        high=nan,
        strength=nan,
        games=np.rint(games).astype(np.int64),
        wins=wins,
        ties=ties,
        level=level,
        resamples=resamples,
        dropped=resamples,
        exists=False,
        clusters=g,
    )
    if not _reach_all(total[None] > 0)[0]:
        return replace(unfitted, reason=_no_mle_reason(total, names))
    strength = _fit_bt(total[None])[0]
    flat = credit.reshape(g, m * m)
    draws: list[FloatArray] = []
    dropped = 0
    for idx in resample_indices(g, resamples, seed):
        # Dense here: with m * m columns a BLAS product beats the sparse one.
        stack = (_counts(idx, g).toarray() @ flat).reshape(-1, m, m)
        ok = _reach_all(stack > 0)
        dropped += int((~ok).sum())
        if ok.any():
            draws.append(_fit_bt(stack[ok]))
    low, high = nan, nan
    if draws:
        low, high = _percentile_bounds(np.concatenate(draws, axis=0), level)
        low, high = ELO_MEAN + ELO_SCALE * low, ELO_MEAN + ELO_SCALE * high
    return replace(
        unfitted,
        rating=ELO_MEAN + ELO_SCALE * strength,
        low=low,
        high=high,
        strength=strength,
        dropped=dropped,
        exists=True,
    )


# --- agreement ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ICCResult:
    """ICC(2,1) with its F-based interval (McGraw and Wong 1996), ``n`` targets by ``k`` raters."""

    icc: float
    low: float
    high: float
    n: int
    k: int
    level: float = DEFAULT_LEVEL


def icc_2_1(ratings: ArrayLike, *, level: float = DEFAULT_LEVEL) -> ICCResult:
    """Intraclass correlation ICC(2,1): two-way random effects, absolute agreement, single rater.

    Definition (Shrout and Fleiss 1979): ``ratings`` is an ``n x k`` matrix (targets by raters, no
    missing cells). With the two-way ANOVA mean squares for rows ``MSR``, columns ``MSC`` and
    error ``MSE``: ``ICC = (MSR - MSE) / (MSR + (k-1) MSE + k (MSC - MSE) / n)``. The interval is
    McGraw and Wong's (1996) approximate F interval for ICC(A,1), as pingouin and SPSS give it. In
    refig the targets are artifacts and the "raters" are a judge's repeats.
    """
    _check_level(level)
    x = np.asarray(ratings, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 2:
        raise ValueError("ICC(2,1) needs an n x k matrix with n >= 2 targets and k >= 2 raters")
    if not np.all(np.isfinite(x)):
        raise ValueError("ICC(2,1) needs complete ratings (no NaN)")
    n, k = x.shape
    grand = x.mean()
    ss_rows = k * ((x.mean(axis=1) - grand) ** 2).sum()
    ss_cols = n * ((x.mean(axis=0) - grand) ** 2).sum()
    ss_err = ((x - grand) ** 2).sum() - ss_rows - ss_cols
    msr = ss_rows / (n - 1)
    msc = ss_cols / (k - 1)
    mse = ss_err / ((n - 1) * (k - 1))
    denom = msr + (k - 1) * mse + k * (msc - mse) / n
    icc = (msr - mse) / denom if denom != 0 else math.nan
    alpha = 1.0 - level
    with np.errstate(divide="ignore", invalid="ignore"):
        a = k * icc / (n * (1 - icc))
        b = 1 + k * icc * (n - 1) / (n * (1 - icc))
        v = (a * msc + b * mse) ** 2 / (
            (a * msc) ** 2 / (k - 1) + (b * mse) ** 2 / ((n - 1) * (k - 1))
        )
        f_hi = sps.f.ppf(1 - alpha / 2, n - 1, v)
        f_lo = sps.f.ppf(1 - alpha / 2, v, n - 1)
        low = n * (msr - f_hi * mse) / (f_hi * (k * msc + (k * n - k - n) * mse) + n * msr)
        high = n * (f_lo * msr - mse) / (k * msc + (k * n - k - n) * mse + n * f_lo * msr)
    return ICCResult(float(icc), float(low), float(high), n, k, level)


@dataclass(frozen=True)
class RankAgreement:
    """Rank correlations of two paired samples, with two-sided p-values (scipy's)."""

    n: int
    spearman: float
    spearman_p: float
    kendall: float
    kendall_p: float
    pearson: float | None = None
    pearson_p: float | None = None


def rank_agreement(a: ArrayLike, b: ArrayLike, *, pearson: bool = False) -> RankAgreement:
    """Spearman's rho and Kendall's tau-b between paired samples (and Pearson's r when asked).

    Definitions: Spearman's rho is Pearson's r of the average ranks; Kendall's tau-b is
    ``(C - D) / sqrt((P - T_a)(P - T_b))`` with ``C``/``D`` concordant/discordant pairs, ``P``
    all pairs and ``T_a``/``T_b`` pairs tied in one sample, so ties on either side are accounted.
    Values are NaN when a side is constant or fewer than two pairs exist.
    """
    xa = np.asarray(a, dtype=np.float64)
    xb = np.asarray(b, dtype=np.float64)
    if xa.shape != xb.shape or xa.ndim != 1:
        raise ValueError("rank agreement needs two vectors of the same length")
    n = xa.size
    if n < 2 or np.ptp(xa) == 0 or np.ptp(xb) == 0:
        nan = math.nan
        return RankAgreement(
            n, nan, nan, nan, nan, nan if pearson else None, nan if pearson else None
        )
    rho = sps.spearmanr(xa, xb)
    tau = sps.kendalltau(xa, xb, variant="b")
    r = sps.pearsonr(xa, xb) if pearson else None
    return RankAgreement(
        n,
        float(rho.statistic),
        float(rho.pvalue),
        float(tau.statistic),
        float(tau.pvalue),
        None if r is None else float(r.statistic),
        None if r is None else float(r.pvalue),
    )


def wilson_interval(successes: int, n: int, *, level: float = DEFAULT_LEVEL) -> tuple[float, float]:
    """Wilson score interval of a proportion ``successes / n`` (NaNs when ``n`` is 0).

    ``(p + z^2/2n +- z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)`` with ``z`` the normal quantile,
    without continuity correction (scipy's ``binomtest(...).proportion_ci(method="wilson")``).
    """
    _check_level(level)
    if n <= 0:
        return math.nan, math.nan
    ci = sps.binomtest(successes, n).proportion_ci(confidence_level=level, method="wilson")
    return float(ci.low), float(ci.high)


DEFAULT_MARGIN_BUCKETS: tuple[float, ...] = (0.0, 5.0, 10.0, 20.0, math.inf)


@dataclass(frozen=True)
class AgreementBucket:
    """Direction agreement within one ``[low, high)`` bucket of absolute judge margin."""

    low: float
    high: float
    decisive: int
    matches: int
    share: float
    ci_low: float
    ci_high: float


@dataclass(frozen=True)
class DirectionAgreement:
    """Per-bucket and overall agreement; ``ties`` human ties were left out."""

    buckets: tuple[AgreementBucket, ...]
    overall: AgreementBucket
    ties: int
    level: float = DEFAULT_LEVEL


def _preference_sign(value: Any) -> int:
    if isinstance(value, str):
        signs = {"a": 1, "left": 1, "b": -1, "right": -1, "tie": 0}
        if value.lower() not in signs:
            raise ValueError(f"unknown preference {value!r}; use A, B or tie")
        return signs[value.lower()]
    return int(np.sign(float(value)))


def direction_agreement(
    margins: ArrayLike,
    preferences: Sequence[Any],
    buckets: Sequence[float] = DEFAULT_MARGIN_BUCKETS,
    *,
    level: float = DEFAULT_LEVEL,
) -> DirectionAgreement:
    """Share of decisive human preferences whose direction the judge margin matches, by bucket.

    Definition: comparison ``i`` has a judge margin ``m_i`` (judge score of the left item minus the
    right one) and a human preference: ``A``/``+1`` (left), ``B``/``-1`` (right) or ``tie``/``0``.
    Ties are not decisive and are left out. A decisive preference matches when
    ``sign(m_i)`` equals its sign; a zero margin points nowhere and never matches. Bucket ``j``
    holds the comparisons with ``edges[j] <= |m_i| < edges[j+1]``; each bucket and the whole set
    get the share of matches with a Wilson score interval.
    """
    m = np.asarray(margins, dtype=np.float64)
    if m.ndim != 1 or m.size != len(preferences):
        raise ValueError("one margin per preference is needed")
    if not np.all(np.isfinite(m)):
        raise ValueError("margins must be finite")
    edges = [float(e) for e in buckets]
    if len(edges) < 2 or any(b <= a for a, b in itertools.pairwise(edges)):
        raise ValueError("buckets must be at least two increasing edges")
    sign = np.array([_preference_sign(p) for p in preferences], dtype=np.int64)
    decisive = sign != 0
    match = decisive & (np.sign(m).astype(np.int64) == sign)
    size = np.abs(m)

    def bucket(lo: float, hi: float, mask: NDArray[np.bool_]) -> AgreementBucket:
        n = int((mask & decisive).sum())
        k = int((mask & match).sum())
        ci = wilson_interval(k, n, level=level)
        return AgreementBucket(lo, hi, n, k, k / n if n else math.nan, *ci)

    rows = tuple(bucket(lo, hi, (size >= lo) & (size < hi)) for lo, hi in itertools.pairwise(edges))
    overall = bucket(edges[0], edges[-1], np.ones_like(decisive))
    return DirectionAgreement(rows, overall, int((~decisive).sum()), level)


# --- agreement between annotators ---------------------------------------------------------------


@dataclass(frozen=True)
class KappaResult:
    """A chance-corrected agreement and its cluster-bootstrap interval.

    ``observed`` is the agreement, ``expected`` the agreement expected by chance; ``n`` items from
    ``clusters`` source figures entered. ``dropped`` resamples had no kappa (chance agreement 1, or
    no item rated twice) and were left out of the interval; ``low``/``high`` are NaN without
    resamples. ``kappa`` is NaN when the data themselves have chance agreement 1.
    """

    kappa: float
    low: float
    high: float
    observed: float
    expected: float
    n: int
    clusters: int
    level: float = DEFAULT_LEVEL
    resamples: int = 0
    dropped: int = 0


def _kappa(observed: FloatArray, expected: FloatArray) -> FloatArray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(expected < 1.0, (observed - expected) / (1.0 - expected), np.nan)


def _kappa_result(
    parts: FloatArray,
    finish: Callable[[FloatArray], tuple[FloatArray, FloatArray]],
    group: NDArray[np.int64],
    resamples: int,
    level: float,
    seed: Seed,
) -> KappaResult:
    """Kappa from per-item additive ``parts`` (items, q): ``finish(sums) -> (observed, expected)``
    turns (rows, q) sums into agreements. Resamples sum whole clusters' parts, each counted as
    often as the cluster was drawn (index rows of :func:`resample_indices`), so memory stays
    (resamples, q) whatever the number of items."""
    g = int(group.max()) + 1
    sums = np.zeros((g, parts.shape[1]))
    np.add.at(sums, group, parts)
    observed, expected = finish(parts.sum(axis=0, keepdims=True))
    kappa = _kappa(observed, expected)
    draws = [
        _kappa(*finish(_counts(idx, g) @ sums)) for idx in resample_indices(g, resamples, seed)
    ] if resamples else []
    dist = np.concatenate(draws) if draws else np.zeros(0)
    finite = dist[np.isfinite(dist)]
    low = high = math.nan
    if finite.size:
        low, high = (float(v) for v in _percentile_bounds(finite, level))
    return KappaResult(
        float(kappa[0]),
        low,
        high,
        float(observed[0]),
        float(expected[0]),
        parts.shape[0],
        g,
        level,
        resamples,
        int(dist.size - finite.size),
    )


def cohen_kappa(
    a: Sequence[Hashable],
    b: Sequence[Hashable],
    *,
    clusters: Sequence[Hashable] | None = None,
    resamples: int = 1000,
    level: float = DEFAULT_LEVEL,
    seed: Seed = 0,
) -> KappaResult:
    """Cohen's kappa of two raters who rated the same items, with a cluster-bootstrap interval.

    Definition (Cohen 1960): ``a[i]`` and ``b[i]`` are the two raters' categories for item ``i``;
    ``p_o`` is the share of items on which they agree and ``p_e = sum_k p_a(k) p_b(k)`` with
    ``p_a(k)``, ``p_b(k)`` each rater's share of category ``k``;
    ``kappa = (p_o - p_e) / (1 - p_e)``, NaN when ``p_e = 1`` (both raters used a single category
    throughout).

    Interval: ``resamples`` cluster-bootstrap resamples draw the items' clusters (source figures;
    every item its own cluster when None) with replacement and recompute ``p_o``, ``p_e`` and
    kappa with each item counted as often as its cluster was drawn; percentile interval over the
    resamples that have a kappa.
    """
    _check_level(level)
    if len(a) != len(b):
        raise ValueError(f"two raters need ratings of the same items ({len(a)} and {len(b)})")
    if not a:
        raise ValueError("Cohen's kappa needs at least one item")
    categories = sorted({str(v) for v in (*a, *b)})
    position = {c: k for k, c in enumerate(categories)}
    k = len(categories)
    eye = np.eye(k)
    x = np.array([position[str(v)] for v in a])
    y = np.array([position[str(v)] for v in b])
    # per item: 1, agreement, rater a's category one-hot, rater b's
    parts = np.column_stack([np.ones(len(x)), (x == y).astype(np.float64), eye[x], eye[y]])

    def finish(sums: FloatArray) -> tuple[FloatArray, FloatArray]:
        total = sums[:, 0]
        expected = (sums[:, 2 : 2 + k] * sums[:, 2 + k :]).sum(axis=1) / total**2
        return sums[:, 1] / total, expected

    group = _cluster_groups(clusters, len(x))
    return _kappa_result(parts, finish, group, resamples, level, seed)


def fleiss_kappa(
    counts: ArrayLike,
    *,
    clusters: Sequence[Hashable] | None = None,
    resamples: int = 1000,
    level: float = DEFAULT_LEVEL,
    seed: Seed = 0,
) -> KappaResult:
    """Fleiss' kappa for items rated by any number of raters, with a cluster-bootstrap interval.

    Definition: ``counts[i, k]`` raters put item ``i`` in category ``k``; ``r_i`` is the row sum.
    Observed agreement, over the items with ``r_i >= 2``, is the mean share of agreeing ordered
    rater pairs, ``p_a = mean_i sum_k c_ik (c_ik - 1) / (r_i (r_i - 1))``; chance agreement is
    ``p_e = sum_k pi_k^2`` with ``pi_k = mean_i c_ik / r_i`` over the items with ``r_i >= 1``;
    ``kappa = (p_a - p_e) / (1 - p_e)``. With the same number of raters on every item this is
    Fleiss' (1971) kappa; with varying numbers it is Gwet's (2014) generalisation (R's
    ``irrCAC::fleiss.raw``). Rows with no rating are ignored.

    Interval: as in :func:`cohen_kappa`, a cluster bootstrap over the rated items.
    """
    _check_level(level)
    c = np.asarray(counts, dtype=np.float64)
    if c.ndim != 2 or c.shape[1] < 1:
        raise ValueError("counts must be an (items, categories) matrix")
    if np.any(c < 0) or not np.all(np.isfinite(c)):
        raise ValueError("counts must be finite and non-negative")
    raters = c.sum(axis=1)
    rated = raters > 0
    if clusters is not None and len(clusters) != c.shape[0]:
        raise ValueError(f"{len(clusters)} cluster labels for {c.shape[0]} items")
    c, raters = c[rated], raters[rated]
    labels = None if clusters is None else [x for x, ok in zip(clusters, rated, strict=True) if ok]
    multi = raters >= 2
    if not multi.any():
        raise ValueError("Fleiss' kappa needs an item rated at least twice")
    with np.errstate(divide="ignore", invalid="ignore"):
        pair_share = np.where(multi, (c * (c - 1)).sum(axis=1) / (raters * (raters - 1)), 0.0)
    # per item: 1, rated at least twice, share of agreeing rater pairs, category shares
    parts = np.column_stack([np.ones(c.shape[0]), multi, pair_share, c / raters[:, None]])

    def finish(sums: FloatArray) -> tuple[FloatArray, FloatArray]:
        with np.errstate(divide="ignore", invalid="ignore"):
            observed = sums[:, 2] / sums[:, 1]
        pi = sums[:, 3:] / sums[:, :1]
        return observed, (pi**2).sum(axis=1)

    group = _cluster_groups(labels, c.shape[0])
    return _kappa_result(parts, finish, group, resamples, level, seed)


# --- weight sensitivity -------------------------------------------------------------------------


@dataclass(frozen=True)
class WeightSweep:
    """How paired effects and the ranking move with one axis' weight; see weight_sign_threshold."""

    axis: int
    default_weight: float
    total: float
    thresholds: FloatArray
    effects_default: FloatArray
    weights: FloatArray
    effects: FloatArray
    spearman: FloatArray
    kendall: FloatArray
    pair_tasks: NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))


def reweighted_points(max_points: ArrayLike, axis: int, weight: float | ArrayLike) -> FloatArray:
    """Axis weights when ``axis`` gets ``weight`` and the others are rescaled to keep the total.

    ``v_axis = w`` and ``v_a = max_a * (T - w) / (T - max_axis)`` for the other axes, ``T`` the sum
    of the default maxima (100 for the paper's rubric). Returns shape ``(len(weight), axes)``.
    """
    top = np.asarray(max_points, dtype=np.float64)
    w = np.atleast_1d(np.asarray(weight, dtype=np.float64))
    total = top.sum()
    rest = total - top[axis]
    if rest <= 0:
        raise ValueError("the other axes carry no weight to rescale")
    out = top[None, :] * ((total - w) / rest)[:, None]
    out[:, axis] = w
    return out


def weight_sign_threshold(
    scores: ArrayLike,
    max_points: ArrayLike,
    axis: int,
    pairs: Sequence[tuple[int, int]] = (),
    sweep: ArrayLike | None = None,
) -> WeightSweep:
    """Where paired effects change sign, and how the ranking moves, as one axis' weight varies.

    Definition: ``scores[c, t, a]`` are configuration ``c``'s points on axis ``a`` for task ``t``
    (NaN when missing), ``max_points[a]`` the rubric maxima (the default weights, total ``T``). With
    normalised scores ``u = scores / max_points`` and weights ``v(w)`` from
    :func:`reweighted_points`, a task's total is ``sum_a v_a(w) u_a``. For a pair ``(c1, c2)`` over
    the tasks both have complete, the paired effect is ``E(w) = w * dE + (T - w) * dO`` with ``dE``
    the mean difference of ``u`` on ``axis`` and ``dO = sum_{a != axis} max_a * mean diff u_a /
    (T - max_axis)``: linear in ``w``, so it changes sign exactly once at
    ``w* = T dO / (dO - dE)`` when that lies in ``[0, T]`` (NaN otherwise, or when ``dO = dE``).

    The sweep (default ``10, 11, ..., 40``) re-ranks configurations by their mean reweighted total
    (each over its own complete tasks) and gives Spearman's rho and Kendall's tau-b between that
    ranking and the one at the default weight.
    """
    x = np.asarray(scores, dtype=np.float64)
    top = np.asarray(max_points, dtype=np.float64)
    if x.ndim != 3 or x.shape[2] != top.size:
        raise ValueError("scores must be (configurations, tasks, axes) matching max_points")
    total = float(top.sum())
    default = float(top[axis])
    u = x / top
    others = np.arange(top.size) != axis
    thresholds, effects_default, counts = [], [], []
    grid = np.arange(10.0, 41.0) if sweep is None else np.asarray(sweep, dtype=np.float64)
    effects = np.zeros((grid.size, len(pairs)))
    for p, (c1, c2) in enumerate(pairs):
        both = np.isfinite(u[c1]).all(axis=1) & np.isfinite(u[c2]).all(axis=1)
        counts.append(int(both.sum()))
        if not both.any():
            thresholds.append(math.nan)
            effects_default.append(math.nan)
            effects[:, p] = math.nan
            continue
        diff = (u[c1, both] - u[c2, both]).mean(axis=0)
        d_e = float(diff[axis])
        d_o = float((top[others] * diff[others]).sum() / (total - default))
        effects[:, p] = grid * d_e + (total - grid) * d_o
        effects_default.append(default * d_e + (total - default) * d_o)
        if math.isclose(d_o, d_e, rel_tol=0.0, abs_tol=1e-15):
            thresholds.append(math.nan)
            continue
        w_star = total * d_o / (d_o - d_e)
        thresholds.append(w_star if 0.0 <= w_star <= total else math.nan)
    complete = np.isfinite(u).all(axis=2)
    means = np.array(
        [
            u[c, complete[c]].mean(axis=0) if complete[c].any() else np.full(top.size, np.nan)
            for c in range(x.shape[0])
        ]
    )
    base = means @ top
    ranked = means @ reweighted_points(top, axis, grid).T
    spearman = np.full(grid.size, np.nan)
    kendall = np.full(grid.size, np.nan)
    ok = np.isfinite(base)
    if ok.sum() >= 2:
        for i in range(grid.size):
            agreement = rank_agreement(ranked[ok, i], base[ok])
            spearman[i], kendall[i] = agreement.spearman, agreement.kendall
    return WeightSweep(
        axis=axis,
        default_weight=default,
        total=total,
        thresholds=np.asarray(thresholds, dtype=np.float64),
        effects_default=np.asarray(effects_default, dtype=np.float64),
        weights=grid,
        effects=effects,
        spearman=spearman,
        kendall=kendall,
        pair_tasks=np.asarray(counts, dtype=np.int64),
    )
