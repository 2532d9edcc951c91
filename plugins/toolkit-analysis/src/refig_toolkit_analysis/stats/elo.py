"""Bradley-Terry strengths with ties as half wins, on the Elo scale, with a cluster bootstrap."""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray
from scipy import special

from refig_toolkit_analysis.stats.bootstrap import _counts, _percentile_bounds, resample_indices
from refig_toolkit_analysis.stats.intervals import DEFAULT_LEVEL, FloatArray, Seed, _check_level

ELO_MEAN = 1000.0
#: Elo points per natural unit of Bradley-Terry strength: a 400-point gap is 10:1 odds.
ELO_SCALE = 400.0 / math.log(10.0)


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
    return np.asarray(reach.reshape(reach.shape[0], -1).all(axis=1))  # an array, for the typing


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
