"""Bootstrap intervals: plain, paired and cluster resampling as count-matrix products."""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import sparse

from refig_toolkit_analysis.stats.intervals import (
    DEFAULT_LEVEL,
    DEFAULT_RESAMPLES,
    FloatArray,
    Interval,
    Seed,
    _check_level,
    _rng,
)

#: Index matrices are drawn in chunks of at most this many entries to bound memory.
_CHUNK_ENTRIES = 1 << 22


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
    dist = cluster_resampled_means(x, clusters, resamples=resamples, seed=seed)
    g = len(set(map(str, clusters)))
    return _intervals(x.mean(axis=0), dist, level, g, vector)


def cluster_resampled_means(
    scores: ArrayLike, clusters: Sequence[Hashable], *, resamples: int = DEFAULT_RESAMPLES,
    seed: Seed = 0,
) -> FloatArray:
    """The ``(resamples, k)`` column means of a ``(tasks, k)`` matrix over resampled clusters.

    Row ``b`` is ``sum_g c_g S_g / sum_g c_g n_g`` of :func:`cluster_bootstrap_ci` (the same index
    rows, so the same numbers): the distribution a statistic of several means (the harness x model
    decomposition) is computed from, resample by resample.
    """
    x, _ = _as_columns(scores, "scores")
    group = _cluster_groups(clusters, x.shape[0])
    g = int(group.max()) + 1
    sums = np.zeros((g, x.shape[1]))
    np.add.at(sums, group, x)
    sizes = np.bincount(group, minlength=g).astype(np.float64)
    dists = []
    for idx in resample_indices(g, resamples, seed):
        counts = _counts(idx, g)
        dists.append((counts @ sums) / (counts @ sizes)[:, None])
    return np.concatenate(dists, axis=0)
