"""Harness and model apart: the two-way decomposition of crossed configuration means.

With ``H`` harnesses each run with the same ``M`` models (one workflow), ``mu[h, m]`` the cell
mean over the tasks every cell scored, the decomposition is the one of a balanced two-way layout:

    grand   mu..  = mean over h, m of mu[h, m]
    harness a_h   = mu[h, .] - mu..          (mean over models, minus the grand mean)
    model   b_m   = mu[., m] - mu..
    inter.  g_hm  = mu[h, m] - mu[h, .] - mu[., m] + mu..

so ``mu[h, m] = mu.. + a_h + b_m + g_hm`` exactly, each effect summing to zero. The spread of the
cell means splits the same way, ``sum (mu[h,m] - mu..)^2 = M sum a_h^2 + H sum b_m^2 +
sum g_hm^2``; a factor's *share* is its part of that sum. Intervals: the cluster bootstrap over
source figures of :func:`.bootstrap.cluster_resampled_means`, every statistic recomputed from the
resampled cell means. ``docs/statistics.md`` has the definitions and the rule for incomplete grids.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from numpy.typing import ArrayLike

from refig_toolkit_analysis.stats.bootstrap import _percentile_bounds, cluster_resampled_means
from refig_toolkit_analysis.stats.intervals import (
    DEFAULT_LEVEL,
    DEFAULT_RESAMPLES,
    FloatArray,
    Interval,
    Seed,
    _check_level,
)

#: The factors of the decomposition, in the order of :attr:`Decomposition.shares`.
FACTORS = ("harness", "model", "interaction")


@dataclass(frozen=True)
class Decomposition:
    """Each effect of the two-way decomposition with its interval (``n`` counts clusters).

    ``harness[h]`` and ``model[m]`` are the main effects, ``interaction[h][m]`` the cell
    interactions, ``shares`` each factor's share of the cell means' sum of squares (NaN when
    every cell mean is the same), ``tasks`` the tasks every cell scored.
    """

    harnesses: tuple[str, ...]
    models: tuple[str, ...]
    grand: Interval
    harness: tuple[Interval, ...]
    model: tuple[Interval, ...]
    interaction: tuple[tuple[Interval, ...], ...]
    shares: dict[str, Interval]
    tasks: int


def two_way_effects(means: ArrayLike) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """``(grand, harness, model, interaction)`` of ``(..., H, M)`` cell means (any leading axes)."""
    mu = np.asarray(means, dtype=np.float64)
    grand = mu.mean(axis=(-2, -1))
    rows = mu.mean(axis=-1) - grand[..., None]
    cols = mu.mean(axis=-2) - grand[..., None]
    inter = mu - rows[..., :, None] - cols[..., None, :] - grand[..., None, None]
    return grand, rows, cols, inter


def sum_of_squares_shares(means: ArrayLike) -> FloatArray:
    """``(..., 3)``: the harness, model and interaction shares of ``sum (mu - mu..)^2``."""
    mu = np.asarray(means, dtype=np.float64)
    _, rows, cols, inter = two_way_effects(mu)
    n_h, n_m = mu.shape[-2], mu.shape[-1]
    parts = np.stack([n_m * (rows**2).sum(axis=-1), n_h * (cols**2).sum(axis=-1),
                      (inter**2).sum(axis=(-2, -1))], axis=-1)
    total = parts.sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 1e-12, parts / np.where(total > 0, total, 1.0), np.nan)


def decompose(
    scores: ArrayLike,
    clusters: Sequence[Hashable],
    harnesses: Sequence[str],
    models: Sequence[str],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    level: float = DEFAULT_LEVEL,
    seed: Seed = 0,
) -> Decomposition:
    """The decomposition of ``scores[t, h, m]`` (tasks x harnesses x models, every cell scored).

    The estimates are the plain statistics of the cell means; each interval is the percentile
    interval of the same statistic over cluster-bootstrap resamples of the tasks (one resample of
    source figures serves every cell, so the pairing of cells within a task is kept).
    """
    _check_level(level)
    x = np.asarray(scores, dtype=np.float64)
    if x.ndim != 3 or x.shape[1:] != (len(harnesses), len(models)):
        raise ValueError("scores must be (tasks, harnesses, models)")
    if x.shape[1] < 2 or x.shape[2] < 2:
        raise ValueError("a decomposition needs two harnesses and two models")
    if x.shape[0] < 1 or not np.all(np.isfinite(x)):
        raise ValueError("every cell needs a finite score on every task; drop the others first")
    flat = x.reshape(x.shape[0], -1)
    dist = cluster_resampled_means(flat, clusters, resamples=resamples, seed=seed)
    resampled = dist.reshape(-1, *x.shape[1:])
    g = len({str(c) for c in clusters})

    def interval(estimate: FloatArray, spread: FloatArray) -> list[Interval]:
        """One interval per column of ``spread`` (resamples x k), NaN resamples left out."""
        found = []
        for e, column in zip(estimate.ravel(), spread.reshape(len(spread), -1).T, strict=True):
            kept = column[np.isfinite(column)]
            if kept.size == 0:
                found.append(Interval(float(e), np.nan, np.nan, level, g))
                continue
            low, high = _percentile_bounds(kept[:, None], level)
            found.append(Interval(float(e), float(low[0]), float(high[0]), level, g))
        return found

    est = two_way_effects(flat.mean(axis=0).reshape(x.shape[1:]))
    boot = two_way_effects(resampled)
    grand, harness, model, inter = (interval(e, b) for e, b in zip(est, boot, strict=True))
    m = len(models)
    shares = interval(sum_of_squares_shares(x.mean(axis=0)), sum_of_squares_shares(resampled))
    return Decomposition(
        tuple(harnesses), tuple(models), grand[0], tuple(harness), tuple(model),
        tuple(tuple(inter[h * m:(h + 1) * m]) for h in range(len(harnesses))),
        dict(zip(FACTORS, shares, strict=True)), x.shape[0],
    )


def largest_crossed_grid(
    cells: Iterable[tuple[str, str]],
) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """The largest complete harnesses x models rectangle among the present ``(harness, model)``
    cells, with at least two of each; None when there is none.

    Largest: the most cells, then the most harnesses, then the first in sorted order. Every set
    of two or more harnesses is tried with the models each of them ran (exhaustive; the grids of
    a benchmark are small). A cell outside the rectangle is left out of the decomposition.
    """
    present = set(cells)
    harnesses = sorted({h for h, _ in present})
    if len(harnesses) > 16:
        raise ValueError(f"{len(harnesses)} harnesses: too many to search for the crossed grid")
    models_of = {h: {m for hh, m in present if hh == h} for h in harnesses}
    best: tuple[int, int, tuple[str, ...], tuple[str, ...]] | None = None
    for size in range(2, len(harnesses) + 1):
        for chosen in combinations(harnesses, size):
            shared = tuple(sorted(set.intersection(*(models_of[h] for h in chosen))))
            if len(shared) < 2:
                continue
            key = (len(chosen) * len(shared), len(chosen))
            if best is None or key > best[:2]:
                best = (*key, chosen, shared)
    return None if best is None else (best[2], best[3])
