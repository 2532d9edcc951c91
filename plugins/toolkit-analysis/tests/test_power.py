"""Plan before you spend: the paired t sizes against statsmodels, the planned size against
simulated studies, and a pilot run's variances and costs read back from its store."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from refig.models import Configuration
from refig_toolkit_analysis.planning import plan, read_pilot
from refig_toolkit_analysis.stats import power
from refig_toolkit_testing.synthetic import RUBRIC, SyntheticSpec, synthetic_run
from scipy import stats
from statsmodels.stats.power import NormalIndPower, TTestPower


@pytest.mark.parametrize(("effect", "sd", "target", "alpha"),
                         [(3.0, 12.0, 0.8, 0.05), (5.0, 6.0, 0.9, 0.05), (1.0, 4.0, 0.8, 0.01),
                          (10.0, 5.0, 0.95, 0.05), (2.0, 20.0, 0.5, 0.1)])
def test_sizes_match_statsmodels(effect: float, sd: float, target: float, alpha: float) -> None:
    n = power.paired_t_tasks(effect, sd, target, alpha)
    reference = TTestPower()
    solved = reference.solve_power(effect_size=effect / sd, alpha=alpha, power=target,
                                   alternative="two-sided")
    assert n == max(2, math.ceil(solved - 1e-6))
    assert power.paired_t_power(n, effect, sd, alpha) == pytest.approx(
        reference.power(effect / sd, n, alpha, alternative="two-sided"), abs=1e-6)
    assert power.paired_t_power(n, effect, sd, alpha) >= target
    if n > 2:
        assert power.paired_t_power(n - 1, effect, sd, alpha) < target
    # one sample (ratio 0) of the normal test; statsmodels also counts the far tail
    normal = NormalIndPower().solve_power(effect / sd, alpha=alpha, power=target, ratio=0)
    assert power.normal_tasks(effect, sd, target, alpha) == pytest.approx(normal, rel=5e-3)
    # the t size exceeds the normal one by about z^2 / 2 (Guenther 1981)
    gap = n - power.normal_tasks(effect, sd, target, alpha)
    assert 0 <= gap < stats.norm.ppf(1 - alpha / 2) ** 2 / 2 + 2


def _simulated_power(n: int, effect: float, task_sd: float, judge_sd: float, repeats: int,
                     studies: int, seed: int) -> float:
    """Share of simulated studies whose paired t test rejects: per task a true difference plus
    a task deviation, each side the mean of ``repeats`` noisy judgments."""
    rng = np.random.default_rng(seed)
    noise = rng.normal(0, judge_sd, size=(studies, n, 2, repeats)).mean(axis=-1)
    d = effect + rng.normal(0, task_sd, size=(studies, n)) + noise[..., 0] - noise[..., 1]
    return float((stats.ttest_1samp(d, 0.0, axis=1).pvalue < 0.05).mean())


@pytest.mark.parametrize(("repeats", "judge_sd"), [(1, 6.0), (3, 6.0), (2, 0.0)])
def test_the_planned_size_reaches_the_power_in_simulated_studies(
        repeats: int, judge_sd: float) -> None:
    task_sd, effect = 5.0, 3.0
    sd = math.sqrt(power.difference_variance(task_sd**2, judge_sd**2, 1.0, repeats))
    n = power.paired_t_tasks(effect, sd, 0.8)
    simulated = _simulated_power(n, effect, task_sd, judge_sd, repeats, 6000, seed=repeats)
    assert abs(simulated - power.paired_t_power(n, effect, sd)) < 0.02
    assert 0.8 - 0.02 < simulated < 0.8 + 0.05


def test_bad_requests_are_refused() -> None:
    with pytest.raises(ValueError, match="positive number of points"):
        power.paired_t_tasks(0.0, 5.0, 0.8)
    with pytest.raises(ValueError, match="power must lie between"):
        power.paired_t_tasks(3.0, 5.0, 0.01)
    with pytest.raises(ValueError, match="SD of the paired differences"):
        power.paired_t_tasks(3.0, 0.0, 0.8)
    with pytest.raises(ValueError, match="tasks would be needed"):
        power.paired_t_tasks(1e-6, 50.0, 0.99)


#: The pilot's truth: a per configuration x task deviation of 0.04 of every axis (4 points of
#: the total on each side), judge noise of 0.03 of each axis per repeat, rounded to whole points.
SPREAD, NOISE = 0.04, 0.03
TOP = np.array([m for _, m in RUBRIC])


@pytest.fixture(scope="module")
def pilot_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pilot") / "run"
    configs = [Configuration(model="m", harness=h, workflow="direct") for h in ("h1", "h2")]
    synthetic_run(root, SyntheticSpec(
        configs=configs, quality=[[0.5] * 5, [0.52] * 5], tasks=200, judges=("j",), repeats=2,
        votes=0, images=False, gate_failures=0.0, failed_judgments=0.0, task_spread=SPREAD,
        noise=NOISE, judgment_cost=0.02, seed=0))
    return root


def _true_study(n: int, repeats: int, effect: float, studies: int, seed: int) -> float:
    """Studies drawn from the synthetic model itself (shares clipped, points rounded per axis)."""
    rng = np.random.default_rng(seed)
    quality = 0.5 + np.array([0.0, effect / 100])[:, None]  # (side, 1): every axis
    difficulty = rng.normal(0, 0.08, size=(studies, n, 1, 1, 1))
    spread = rng.normal(0, SPREAD, size=(studies, n, 2, 1, 1))
    share = quality[None, None, :, None, :] - difficulty + spread + rng.normal(
        0, NOISE, size=(studies, n, 2, repeats, len(TOP)))
    totals = np.round(np.clip(share, 0, 1) * TOP).sum(axis=-1).mean(axis=-1)
    d = totals[..., 1] - totals[..., 0]
    return float((stats.ttest_1samp(d, 0.0, axis=1).pvalue < 0.05).mean())


def test_a_pilot_run_plans_a_study_that_reaches_its_power(pilot_run: Path) -> None:
    pilot = read_pilot(pilot_run)
    judge_sd = math.sqrt(((NOISE * TOP) ** 2).sum() + len(TOP) / 12)  # noise and rounding
    assert math.sqrt(pilot.judge_variance) == pytest.approx(judge_sd, rel=0.1)
    (pair,) = pilot.pairs
    assert math.sqrt(pair.task_variance) == pytest.approx(math.sqrt(2) * SPREAD * 100, rel=0.1)
    assert pair.judged_share == 1.0 and pilot.repeats == 2
    assert pilot.judgment_cost == pytest.approx(0.02) and pilot.attempt_cost is not None
    found = plan(pilot, effect=3.0, power=0.8)
    assert [r.repeats for r in found.rows] == [1, 2, 3, 4, 5]
    assert [r.tasks for r in found.rows] == sorted((r.tasks for r in found.rows), reverse=True)
    best = found.recommended
    assert best.total_cost == min(r.total_cost for r in found.rows)
    assert best.attempt_cost == pytest.approx(2 * best.tasks * pilot.attempt_cost)
    assert best.judging_cost == pytest.approx(2 * best.tasks * best.repeats * 0.02)
    for row in (found.rows[0], found.rows[2]):
        achieved = _true_study(row.tasks, row.repeats, 3.0, 3000, seed=row.repeats)
        # the pilot's own sampling error (its SD of differences is within 10%) moves it most
        assert 0.8 - 0.06 < achieved < 0.8 + 0.06, (row, achieved)


def test_a_pilot_judged_once_keeps_its_one_repeat(tmp_path: Path) -> None:
    configs = [Configuration(model="m", harness=h, workflow="direct") for h in ("h1", "h2")]
    synthetic_run(tmp_path / "run", SyntheticSpec(
        configs=configs, quality=[[0.5] * 5] * 2, tasks=12, judges=("j",), repeats=1, votes=0,
        images=False, gate_failures=0.0, failed_judgments=0.0, task_spread=SPREAD))
    pilot = read_pilot(tmp_path / "run")
    assert pilot.judge_variance is None and pilot.judgment_cost is None
    found = plan(pilot, effect=3.0, power=0.8, max_repeats=4)
    assert [r.repeats for r in found.rows] == [1]
    assert "not separable" in found.reason and found.recommended.judging_cost is None
