"""Judge repeatability: ICC(2,1) with its F-based interval."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats as sps

from refig_toolkit_analysis.stats.intervals import DEFAULT_LEVEL, _check_level


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
