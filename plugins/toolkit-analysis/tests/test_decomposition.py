"""Harness and model apart: the two-way decomposition against statsmodels' ANOVA and a plain
bootstrap loop, the crossed-grid rule, and a synthetic run whose planted harness effect the
interval recovers (and whose absent one it does not invent)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from refig.models import Configuration
from refig_toolkit_analysis import stats
from refig_toolkit_analysis.analysis import Options, analyse
from refig_toolkit_testing.synthetic import SyntheticSpec, synthetic_run
from statsmodels.formula.api import ols
from statsmodels.stats.anova import anova_lm

HARNESSES = ("h1", "h2")
MODELS = ("m1", "m2", "m3")


def _cube(seed: int = 3, tasks: int = 30) -> np.ndarray:
    rng = np.random.default_rng(seed)
    effect = rng.normal(0, 4, size=(len(HARNESSES), len(MODELS)))
    return 50 + effect + rng.normal(0, 6, size=(tasks, 1, 1)) + rng.normal(
        0, 3, size=(tasks, len(HARNESSES), len(MODELS)))


def test_effects_and_shares_match_a_two_way_anova() -> None:
    x = _cube()
    found = stats.decompose(x, [f"f{t // 2}" for t in range(len(x))], HARNESSES, MODELS,
                            resamples=200)
    long = pd.DataFrame([{"y": x[t, h, m], "h": HARNESSES[h], "m": MODELS[m]}
                         for t in range(len(x)) for h in range(2) for m in range(3)])
    fit = ols("y ~ C(h, Sum) * C(m, Sum)", long).fit()
    # sum-to-zero coding: the coefficients are the effects of all levels but the last
    assert found.grand.estimate == pytest.approx(fit.params["Intercept"])
    assert found.harness[0].estimate == pytest.approx(fit.params["C(h, Sum)[S.h1]"])
    assert found.harness[1].estimate == pytest.approx(-fit.params["C(h, Sum)[S.h1]"])
    for j, m in enumerate(MODELS[:-1]):
        assert found.model[j].estimate == pytest.approx(fit.params[f"C(m, Sum)[S.{m}]"])
        assert found.interaction[0][j].estimate == pytest.approx(
            fit.params[f"C(h, Sum)[S.h1]:C(m, Sum)[S.{m}]"])
    table = anova_lm(fit, typ=2)
    ss = table["sum_sq"].iloc[:3].to_numpy()  # C(h), C(m), C(h):C(m): balanced, so orthogonal
    for factor, share in zip(stats.decomposition.FACTORS, ss / ss.sum(), strict=True):
        assert found.shares[factor].estimate == pytest.approx(share)
    cells = x.mean(axis=0)
    rebuilt = (found.grand.estimate + np.array([e.estimate for e in found.harness])[:, None]
               + np.array([e.estimate for e in found.model])[None, :]
               + np.array([[e.estimate for e in row] for row in found.interaction]))
    np.testing.assert_allclose(rebuilt, cells)


def test_intervals_are_the_percentiles_of_a_plain_resampling_loop() -> None:
    x = _cube(tasks=12)
    clusters = [f"f{t // 3}" for t in range(len(x))]
    found = stats.decompose(x, clusters, HARNESSES, MODELS, resamples=300, seed=5)
    figures = sorted(set(clusters))
    harness, shares = [], []
    for row in np.concatenate(list(stats.resample_indices(len(figures), 300, 5))):
        chosen = [t for g in row for t in range(len(x)) if clusters[t] == figures[g]]
        mu = x[chosen].mean(axis=0)
        harness.append(mu.mean(axis=1)[0] - mu.mean())
        a = mu.mean(axis=1) - mu.mean()
        b = mu.mean(axis=0) - mu.mean()
        g = mu - a[:, None] - b[None, :] - mu.mean()
        parts = np.array([3 * (a**2).sum(), 2 * (b**2).sum(), (g**2).sum()])
        shares.append(parts / parts.sum())
    low, high = np.quantile(harness, [0.025, 0.975])
    assert (found.harness[0].low, found.harness[0].high) == pytest.approx((low, high))
    low, high = np.quantile(np.array(shares)[:, 1], [0.025, 0.975])
    assert (found.shares["model"].low, found.shares["model"].high) == pytest.approx((low, high))
    assert found.harness[0].n == 4


def test_the_crossed_grid_is_the_largest_complete_rectangle() -> None:
    cells = {("a", "x"), ("a", "y"), ("b", "x"), ("b", "y"), ("c", "x"), ("c", "z"), ("a", "z")}
    # {a, b} x {x, y} and {a, c} x {x, z} hold 4 cells each: the first in sorted order wins
    assert stats.largest_crossed_grid(cells) == (("a", "b"), ("x", "y"))
    cells |= {("b", "z")}  # 6 cells in {a, b} x {x, y, z} and {a, b, c} x {x, z}: more harnesses
    assert stats.largest_crossed_grid(cells) == (("a", "b", "c"), ("x", "z"))
    assert stats.largest_crossed_grid({("a", "x"), ("a", "y"), ("b", "x")}) is None
    with pytest.raises(ValueError, match="two harnesses and two models"):
        stats.decompose(np.ones((4, 1, 2)), list("abcd"), ["h"], ["x", "y"])
    with pytest.raises(ValueError, match="finite score"):
        stats.decompose(np.full((4, 2, 2), np.nan), list("abcd"), ["h", "i"], ["x", "y"])


def _crossed_run(root: Path, harness_gain: float, seed: int) -> Path:
    """Two harnesses x three models; ``harness_gain`` (share of every axis's maximum) planted on
    h2, model effects on m2 and m3, no interaction."""
    model_gain = {"m1": 0.0, "m2": 0.04, "m3": -0.03}
    configs = [Configuration(model=m, harness=h, workflow="direct")
               for h in HARNESSES for m in MODELS]
    quality = [[0.5 + harness_gain * (c.harness == "h2") + model_gain[c.model]] * 5
               for c in configs]
    synthetic_run(root, SyntheticSpec(
        configs=configs, quality=quality, tasks=40, tasks_per_figure=2, judges=("j",),
        repeats=2, votes=0, images=False, gate_failures=0.0, failed_judgments=0.0,
        task_spread=0.05, seed=seed))
    return root


def _rows(analysis, key: str) -> dict[tuple[str, str], dict]:
    return {(r["component"], r["level"]): r for r in analysis.table(key).rows}


def test_a_planted_harness_effect_is_recovered(tmp_path: Path) -> None:
    # h2 gains 0.06 of every axis: 6 points of 100, so h2's main effect is +3 and h1's -3
    analysis = analyse(_crossed_run(tmp_path / "run", 0.06, 0), Options(resamples=2000))
    rows = _rows(analysis, "harness_model")
    h1, h2 = rows[("harness", "h1")]["effect"], rows[("harness", "h2")]["effect"]
    assert h2.low < 3.0 < h2.high and h2.low > 0
    assert h1.low < -3.0 < h1.high and h1.high < 0
    assert rows[("model", "m2")]["effect"].low > 0 > rows[("model", "m3")]["effect"].high
    for (component, _), row in rows.items():
        if component == "interaction" and "effect" in row:
            assert row["effect"].low < 0 < row["effect"].high  # none planted
    share = next(r for r in analysis.as_dict()["tables"]["harness_model"]["rows"]
                 if r["component"] == "harness" and r["level"] == "(share)")["share"]
    assert set(share) == {"estimate", "low", "high"} and 0 < share["low"] < share["high"] <= 1
    swaps = analysis.table("harness_swaps")
    assert [r["model"] for r in swaps.rows] == list(MODELS)
    for row in swaps.rows:
        assert row["comparison"] == "h2 − h1" and row["delta"].low > 0
        assert row["better"] + row["worse"] + row["level"] == row["n"] == 40
    detail = analysis.table("harness_task_deltas")
    assert detail.detail and len(detail.rows) == 3 * 40
    by_model = {m: [r["delta"] for r in detail.rows if r["model"] == m] for m in MODELS}
    for row in swaps.rows:
        assert row["delta"].value == pytest.approx(np.mean(by_model[row["model"]]))


def test_no_harness_effect_is_not_invented(tmp_path: Path) -> None:
    rows = _rows(analyse(_crossed_run(tmp_path / "run", 0.0, 2), Options(resamples=2000)),
                 "harness_model")
    for level in HARNESSES:
        effect = rows[("harness", level)]["effect"]
        assert effect.low < 0 < effect.high


def test_an_incomplete_grid_keeps_its_crossed_part_and_a_run_without_one_says_why(
        tmp_path: Path) -> None:
    configs = [Configuration(model=m, harness=h, workflow="direct")
               for h, m in (("h1", "m1"), ("h1", "m2"), ("h2", "m1"), ("h2", "m2"), ("h3", "m1"))]
    synthetic_run(tmp_path / "run", SyntheticSpec(
        configs=configs, quality=[[0.5] * 5] * 5, tasks=6, judges=("j",), repeats=1, votes=0,
        images=False, gate_failures=0.0, failed_judgments=0.0))
    table = analyse(tmp_path / "run", Options(resamples=200)).table("harness_model")
    assert {r["level"] for r in table.rows if r["component"] == "harness"} == {
        "(share)", "h1", "h2"}
    assert "direct: outside the crossed grid, left out: m1@h3/direct" in table.notes
    single = [Configuration(model="m1", harness=h, workflow="direct") for h in HARNESSES]
    synthetic_run(tmp_path / "line", SyntheticSpec(
        configs=single, quality=[[0.5] * 5] * 2, tasks=6, judges=("j",), repeats=1, votes=0,
        images=False, gate_failures=0.0, failed_judgments=0.0))
    analysis = analyse(tmp_path / "line", Options(resamples=200))
    assert "crossed harness x model grid" in analysis.table("harness_model").insufficient
    assert analysis.table("harness_swaps").rows  # one model in two harnesses: a swap
