"""Agreement between annotators: Cohen's and Fleiss' kappa with cluster-bootstrap intervals."""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from refig_toolkit_analysis.stats.bootstrap import (
    _cluster_groups,
    _counts,
    _percentile_bounds,
    resample_indices,
)
from refig_toolkit_analysis.stats.intervals import DEFAULT_LEVEL, FloatArray, Seed, _check_level


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
