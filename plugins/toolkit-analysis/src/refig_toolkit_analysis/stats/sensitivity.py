"""Weight sensitivity: the editability weight at which each paired effect changes sign."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from refig_toolkit_analysis.stats.agreement import rank_agreement
from refig_toolkit_analysis.stats.intervals import FloatArray


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
    complete = np.asarray(np.isfinite(u).all(axis=2))  # an array, for the typing
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


#: The weights the Elo sweep gives each axis in turn: shares of the rubric's total points.
ELO_SWEEP_SHARES = tuple(np.round(np.arange(0.0, 0.51, 0.05), 2))


def axis_weight_correlations(
    scores: ArrayLike, max_points: ArrayLike, ratings: ArrayLike, weights: ArrayLike,
) -> FloatArray:
    """Pearson's r of reweighted configuration means against external ratings (human Elo).

    ``scores[c, t, a]`` are configuration ``c``'s points (NaN when missing), ``ratings[c]`` its
    rating (NaN when it has none). A configuration's mean normalised scores ``m_c`` are taken
    over its tasks with every axis scored. For axis ``e`` and weight ``w`` (each of
    ``weights``), the weights :func:`reweighted_points` gives (the other axes rescaled to keep
    the total) score configuration ``c`` as ``m_c . v(w)``; the result ``r[k, e]`` is Pearson's
    r of those scores against ``ratings`` over the configurations having both, NaN below three
    or when either side is constant.
    """
    x = np.asarray(scores, dtype=np.float64)
    top = np.asarray(max_points, dtype=np.float64)
    elo = np.asarray(ratings, dtype=np.float64)
    grid = np.atleast_1d(np.asarray(weights, dtype=np.float64))
    if x.ndim != 3 or x.shape[2] != top.size or elo.shape != (x.shape[0],):
        raise ValueError("scores must be (configurations, tasks, axes) matching max_points, "
                         "and ratings one per configuration")
    u = x / top
    complete = np.asarray(np.isfinite(u).all(axis=2))
    means = np.array([u[c, complete[c]].mean(axis=0) if complete[c].any()
                      else np.full(top.size, np.nan) for c in range(x.shape[0])])
    keep = np.isfinite(elo) & np.isfinite(means).all(axis=1)
    out = np.full((grid.size, top.size), np.nan)
    if keep.sum() < 3:
        return out
    for e in range(top.size):
        weighted = means[keep] @ reweighted_points(top, e, grid).T  # (configs, weights)
        for k in range(grid.size):
            r = rank_agreement(weighted[:, k], elo[keep], pearson=True).pearson
            out[k, e] = math.nan if r is None else r
    return out

