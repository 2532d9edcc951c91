"""Study sizes: how many tasks a paired comparison needs, and what judge noise adds.

A study compares two configurations on the same ``n`` tasks; task ``t`` gives the difference
``d_t`` of their scores, each the mean of ``k`` judge repeats. With ``s_task^2`` the variance of
the differences without judge noise, ``s_judge^2`` the variance of one repeat's total about its
artifact's mean and ``f`` the share of cells a judge scores (gate failures are 0 without one),

    var(d_t) = s_task^2 + 2 f s_judge^2 / k                           (:func:`difference_variance`)

The test is the two-sided paired t test at level ``alpha``; its power for a true mean difference
``D`` is ``P(|T| > t_{1-alpha/2, n-1})`` with ``T`` noncentral t, ``n - 1`` degrees of freedom
and noncentrality ``D sqrt(n) / sd`` (:func:`paired_t_power`). The planned size is the smallest
``n >= 2`` whose power reaches the target (:func:`paired_t_tasks`); :func:`normal_tasks` is the
normal approximation ``((z_{1-alpha/2} + z_power) sd / D)^2``; the t size is larger, by about
``z_{1-alpha/2}^2 / 2`` (2 tasks at alpha = 0.05).
"""

from __future__ import annotations

import math

#: Beyond this many tasks a plan is not worth stating (the effect is far below the noise).
MAX_TASKS = 10**7


def _check(effect: float, sd: float, power: float, alpha: float) -> None:
    if not (math.isfinite(effect) and effect > 0):
        raise ValueError(f"the effect must be a positive number of points, not {effect}")
    if not (math.isfinite(sd) and sd > 0):
        raise ValueError(f"the SD of the paired differences must be positive, not {sd}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie strictly between 0 and 1, not {alpha}")
    if not alpha < power < 1:
        raise ValueError(f"power must lie between alpha ({alpha}) and 1, not {power}")


def difference_variance(task_variance: float, judge_variance: float, judged_share: float,
                        repeats: int) -> float:
    """``s_task^2 + 2 f s_judge^2 / k``: the variance of a task's paired difference."""
    if repeats < 1:
        raise ValueError(f"judge repeats must be at least 1, not {repeats}")
    return task_variance + 2.0 * judged_share * judge_variance / repeats


def paired_t_power(n: int, effect: float, sd: float, alpha: float = 0.05) -> float:
    """Power of the two-sided paired t test on ``n`` tasks for a true difference ``effect``."""
    from scipy import stats

    if n < 2:
        raise ValueError(f"a paired t test needs 2 tasks, not {n}")
    df = n - 1
    ncp = effect * math.sqrt(n) / sd
    crit = float(stats.t.ppf(1 - alpha / 2, df))
    return float(stats.nct.sf(crit, df, ncp) + stats.nct.cdf(-crit, df, ncp))


def normal_tasks(effect: float, sd: float, power: float, alpha: float = 0.05) -> float:
    """The normal approximation ``((z_{1-alpha/2} + z_power) sd / effect)^2`` (not rounded)."""
    from scipy import stats

    _check(effect, sd, power, alpha)
    z = float(stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(power))
    return (z * sd / effect) ** 2


def paired_t_tasks(effect: float, sd: float, power: float, alpha: float = 0.05) -> int:
    """The smallest ``n >= 2`` whose paired t power reaches ``power``.

    Power grows with ``n``, so a bisection between 2 and a bound found by doubling from the normal
    approximation finds it exactly; beyond :data:`MAX_TASKS` it raises.
    """
    _check(effect, sd, power, alpha)
    if normal_tasks(effect, sd, power, alpha) > MAX_TASKS:
        raise ValueError(f"more than {MAX_TASKS:,} tasks would be needed")
    low = 1  # paired_t_power(low) < power, or low is below the smallest test
    high = max(2, math.ceil(normal_tasks(effect, sd, power, alpha)))
    while paired_t_power(high, effect, sd, alpha) < power:
        low, high = high, high * 2
        if high > MAX_TASKS:
            raise ValueError(f"more than {MAX_TASKS:,} tasks would be needed")
    while high - low > 1:
        middle = (low + high) // 2
        if middle >= 2 and paired_t_power(middle, effect, sd, alpha) >= power:
            high = middle
        else:
            low = middle
    return high
