"""Agreement of judges: rank correlation, and direction agreement with human votes by margin."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats as sps

from refig_toolkit_analysis.stats.intervals import DEFAULT_LEVEL, wilson_interval


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


#: Judge margins (points out of 100) below this are ties in the ReFigBench protocol.
TIE_MARGIN = 2.0
#: Bucket edges of the absolute judge margin, ReFigBench's: ``[0, 2)`` (the judge's ties),
#: ``[2, 5)``, ``[5, 10)`` and the top bucket from 10 up.
DEFAULT_MARGIN_BUCKETS: tuple[float, ...] = (0.0, TIE_MARGIN, 5.0, 10.0, math.inf)
#: What a decisive vote on a pair the judge scored level counts as: ``exclude`` (the ReFigBench
#: protocol: left out and counted; what ``refig report`` uses) or ``disagree`` (the older
#: convention: a mismatch; this function's default, so existing callers keep their numbers).
ZeroMargin = Literal["exclude", "disagree"]


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
    """Per-bucket and overall agreement; ``ties`` human ties were left out, and so were
    ``zero_margins`` decisive votes on pairs the judge scored level (under ``exclude``)."""

    buckets: tuple[AgreementBucket, ...]
    overall: AgreementBucket
    ties: int
    level: float = DEFAULT_LEVEL
    zero_margins: int = 0
    zero_margin: ZeroMargin = "disagree"


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
    zero_margin: ZeroMargin = "disagree",
) -> DirectionAgreement:
    """Share of decisive human preferences whose direction the judge margin matches, by bucket.

    Definition: comparison ``i`` has a judge margin ``m_i`` (judge score of the left item minus the
    right one) and a human preference: ``A``/``+1`` (left), ``B``/``-1`` (right) or ``tie``/``0``.
    Ties are not decisive and are left out. A decisive preference matches when
    ``sign(m_i)`` equals its sign. A zero margin points nowhere: under ``zero_margin="exclude"``
    (the ReFigBench protocol, the report's setting) such votes are left out and counted in
    ``zero_margins``; under ``"disagree"`` (the default here) they stay in and never match.
    Bucket ``j`` holds the comparisons with ``edges[j] <= |m_i| < edges[j+1]``; each bucket and
    the whole set get the share of matches with a Wilson score interval.
    """
    if zero_margin not in ("exclude", "disagree"):
        raise ValueError(f"zero_margin must be 'exclude' or 'disagree', not {zero_margin!r}")
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
    level_votes = decisive & (m == 0)
    if zero_margin == "exclude":
        decisive = decisive & ~level_votes
    match = decisive & (np.sign(m).astype(np.int64) == sign)
    size = np.abs(m)

    def bucket(lo: float, hi: float, mask: NDArray[np.bool_]) -> AgreementBucket:
        n = int((mask & decisive).sum())
        k = int((mask & match).sum())
        ci = wilson_interval(k, n, level=level)
        return AgreementBucket(lo, hi, n, k, k / n if n else math.nan, *ci)

    rows = tuple(bucket(lo, hi, (size >= lo) & (size < hi)) for lo, hi in itertools.pairwise(edges))
    overall = bucket(edges[0], edges[-1], np.ones_like(decisive))
    ties = int((sign == 0).sum())
    return DirectionAgreement(rows, overall, ties, level, int(level_votes.sum()), zero_margin)
