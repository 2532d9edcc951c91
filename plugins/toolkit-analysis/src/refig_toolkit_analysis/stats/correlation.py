"""Agreement of continuous scores: Pearson's r with a cluster-bootstrap interval (judge against
humans), and Krippendorff's alpha at the interval level (between humans)."""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from refig_toolkit_analysis.stats.bootstrap import (
    _cluster_groups,
    _counts,
    _percentile_bounds,
    resample_indices,
)
from refig_toolkit_analysis.stats.intervals import (
    DEFAULT_LEVEL,
    DEFAULT_RESAMPLES,
    Seed,
    _check_level,
)

#: Below this many paired cases a Pearson correlation is not computed.
MIN_PEARSON_CASES = 3


@dataclass(frozen=True)
class Correlation:
    """Pearson's ``r`` over ``n`` cases from ``clusters`` clusters, with its bootstrap interval
    (NaN bounds when no resample had variance on both sides)."""

    r: float
    low: float
    high: float
    n: int
    clusters: int
    level: float = DEFAULT_LEVEL


def _pearson_from_sums(s: np.ndarray) -> np.ndarray:
    """r from the columns (count, sum x, sum y, sum x^2, sum y^2, sum xy); NaN without variance."""
    n, sx, sy, sxx, syy, sxy = (s[..., k] for k in range(6))
    vx, vy = n * sxx - sx * sx, n * syy - sy * sy
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (n * sxy - sx * sy) / np.sqrt(vx * vy)
    tiny = 1e-12 * np.maximum(n * n, 1.0)
    return np.where((vx > tiny) & (vy > tiny), np.clip(r, -1.0, 1.0), np.nan)


def pearson_ci(x: ArrayLike, y: ArrayLike, clusters: Sequence[Hashable] | None = None, *,
               resamples: int = DEFAULT_RESAMPLES, level: float = DEFAULT_LEVEL,
               seed: Seed = 0) -> Correlation:
    """Pearson's r of paired scores, with a percentile cluster-bootstrap interval.

    Definition: ``r = cov(x, y) / (sd(x) sd(y))`` over the ``n`` pairs (NaN below
    :data:`MIN_PEARSON_CASES` pairs or when either side is constant). The interval resamples the
    ``G`` clusters (every pair its own cluster when ``clusters`` is None) with replacement
    (:func:`.bootstrap.resample_indices`), computes r over every pair of every drawn
    cluster, as often as it was drawn, and takes the ``(1 - level) / 2`` quantiles over the
    resamples whose r is defined.
    """
    _check_level(level)
    xs, ys = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if xs.shape != ys.shape or xs.ndim != 1:
        raise ValueError("x and y must be vectors of the same length")
    if not (np.all(np.isfinite(xs)) and np.all(np.isfinite(ys))):
        raise ValueError("x and y hold NaN or infinite values; drop missing cases first")
    n = xs.shape[0]
    if n < MIN_PEARSON_CASES:
        return Correlation(math.nan, math.nan, math.nan, n, 0, level)
    group = _cluster_groups(clusters, n)
    g = int(group.max()) + 1
    terms = np.column_stack([np.ones(n), xs, ys, xs * xs, ys * ys, xs * ys])
    sums = np.zeros((g, 6))
    np.add.at(sums, group, terms)
    r = float(_pearson_from_sums(sums.sum(axis=0)))
    if math.isnan(r):
        return Correlation(math.nan, math.nan, math.nan, n, g, level)
    dists = [_pearson_from_sums(_counts(idx, g) @ sums)
             for idx in resample_indices(g, resamples, seed)]
    dist = np.concatenate(dists)
    dist = dist[np.isfinite(dist)]
    if dist.size == 0:
        return Correlation(r, math.nan, math.nan, n, g, level)
    low, high = _percentile_bounds(dist[:, None], level)
    return Correlation(r, float(low[0]), float(high[0]), n, g, level)


@dataclass(frozen=True)
class Alpha:
    """Krippendorff's alpha over ``units`` units rated at least twice, ``values`` pairable
    ratings in all, by ``annotators`` annotators (NaN when there is no disagreement to expect)."""

    alpha: float
    units: int
    values: int
    annotators: int


def krippendorff_alpha(ratings: Mapping[Any, Mapping[str, float]]) -> Alpha:
    """Krippendorff's alpha at the interval level, computed by the ``krippendorff`` package.

    ``ratings`` maps each unit (a rated task x configuration) to each annotator's value. Only
    units with two or more values are pairable; ``alpha = 1 - D_o / D_e`` with squared
    differences as the distance (Krippendorff 2011).
    """
    import krippendorff

    units = [unit for unit, by in ratings.items() if len(by) >= 2]
    annotators = sorted({a for unit in units for a in ratings[unit]})
    values = sum(len(ratings[unit]) for unit in units)
    if not units:
        return Alpha(math.nan, 0, 0, len(annotators))
    data = np.full((len(annotators), len(units)), np.nan)
    row = {a: k for k, a in enumerate(annotators)}
    for column, unit in enumerate(units):
        for annotator, value in ratings[unit].items():
            data[row[annotator], column] = value
    if len(np.unique(data[np.isfinite(data)])) < 2:
        return Alpha(math.nan, len(units), values, len(annotators))
    alpha = float(krippendorff.alpha(reliability_data=data, level_of_measurement="interval"))
    return Alpha(alpha, len(units), values, len(annotators))
