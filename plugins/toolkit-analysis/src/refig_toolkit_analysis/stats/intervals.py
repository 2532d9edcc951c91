"""Shared ground of the statistics: seeds, levels, the Interval record, Wilson intervals."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import stats as sps

DEFAULT_RESAMPLES = 10_000
DEFAULT_LEVEL = 0.95

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
