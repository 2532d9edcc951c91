"""The tables that regenerate ReFigBench's per-run tables (18, 20), its per-axis effects
(Figure 4), judge means against Elo, the per-field breakdown and the weight sweep against Elo,
each recomputed here from the stored judgments with plain loops, scipy and numpy."""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from refig.cli import run as cli
from refig.models import Attempt, AttemptStatus, Configuration, Judgment, JudgmentStatus
from refig.store import RunStore
from refig_toolkit_analysis import stats
from refig_toolkit_analysis.analysis import Context, Estimate, Options, RunData, analyse
from refig_toolkit_analysis.analysis.fields import NO_FIELD, fields
from refig_toolkit_testing.synthetic import SyntheticSpec, synthetic_run
from scipy import stats as sps

RESAMPLES = 400


@pytest.fixture(scope="module")
def analysis(hand):
    """The hand run (judge j1: two judging runs; A's task 0 failed its second)."""
    return analyse(hand.store, Options(judge="j1", resamples=RESAMPLES, elo_resamples=100))


def _slide(hand, c: int, t: int) -> str:
    return hashlib.sha256(f"slide {hand.configs[c].id} {hand.tasks[t]}".encode()).hexdigest()


def _run_totals(hand, repeat: int) -> np.ndarray:
    """(configs, tasks) totals of judge j1's judging run ``repeat + 1``, straight from the
    records: gate failures 0, a failed or absent judgment of that repeat NaN."""
    ok = {(j.artifact_sha256, j.repeat): j.total for j in hand.store.query(Judgment)
          if j.judge == "j1" and j.status == JudgmentStatus.OK}
    out = np.full((len(hand.configs), len(hand.tasks)), np.nan)
    for c in range(len(hand.configs)):
        for t in range(len(hand.tasks)):
            if (c, t) in hand.gates:
                out[c, t] = 0.0
            elif np.isfinite(hand.expected[(c, t)]).all():
                out[c, t] = ok.get((_slide(hand, c, t), repeat), math.nan)
    return out


def test_run_means_are_each_repeats_own_mean(hand, analysis, table_row) -> None:
    table = analysis.table("run_means")
    assert [c.key for c in table.columns[1:3]] == ["run_1", "run_2"]
    for c, config in enumerate(hand.configs):
        row = table_row(analysis, "run_means", config=config.id)
        pooled = hand.matrix(c)[:, -1]
        assert row["pooled"].value == pytest.approx(np.nanmean(pooled))
        runs = []
        for r in (0, 1):
            totals = _run_totals(hand, r)[c]
            kept = totals[np.isfinite(totals)]
            runs.append(kept.mean())
            assert row[f"run_{r + 1}"].value == pytest.approx(kept.mean())
            interval = stats.bootstrap_ci(kept, resamples=RESAMPLES, seed=0)
            assert (row[f"run_{r + 1}"].low, row[f"run_{r + 1}"].high) == pytest.approx(
                (interval.low, interval.high))
        assert row["range"] == pytest.approx(max(runs) - min(runs))
    assert table_row(analysis, "run_means", config=hand.configs[0].id)["missing"] == "run 2: 1 task"
    assert table_row(analysis, "run_means", config=hand.configs[1].id)["missing"] == "none"
    assert any("failed" in note for note in table.notes)


def test_run_means_equal_the_means_under_judge_run(hand, analysis, table_row) -> None:
    for run in (1, 2):
        alone = analyse(hand.store, Options(judge="j1", resamples=RESAMPLES, judge_run=run))
        for config in hand.configs:
            mean = table_row(alone, "means", config=config.id)["total"]
            assert table_row(analysis, "run_means", config=config.id)[f"run_{run}"] == mean
        said = alone.table("run_means").not_applicable
        assert said.startswith(f"the tables hold judging run {run}")


def test_run_effects_pair_each_runs_scores(hand, analysis, table_row) -> None:
    for kind, (treat, base) in (("workflow", (1, 0)), ("harness", (2, 0))):
        row = table_row(analysis, "run_effects", kind=kind)
        lost = []
        for r in (0, 1):
            totals = _run_totals(hand, r)
            both = np.isfinite(totals[treat]) & np.isfinite(totals[base])
            diff = totals[treat, both] - totals[base, both]
            assert row[f"run_{r + 1}"].value == pytest.approx(diff.mean())
            if diff.size >= 5:  # an interval from five tasks on
                interval = stats.bootstrap_ci(diff, resamples=RESAMPLES, seed=0)
                assert row[f"run_{r + 1}"].low == pytest.approx(interval.low)
            else:
                assert row[f"run_{r + 1}"].low is None
            pooled = np.isfinite(hand.matrix(treat)[:, -1]) & np.isfinite(hand.matrix(base)[:, -1])
            lost.append(int((pooled & ~both).sum()))
        effect = table_row(analysis, "effects", kind=kind)["d_total"]
        assert row["pooled"] == effect
        expected = ", ".join(f"run {r + 1}: {n} task{'s' * (n != 1)}"
                             for r, n in enumerate(lost) if n) or "none"
        assert row["missing"] == expected
    assert table_row(analysis, "run_effects", kind="workflow")["missing"] == "run 2: 1 task"


@pytest.fixture(scope="module")
def failing_store(tmp_path_factory: pytest.TempPathFactory) -> RunStore:
    """Three judging runs where a quarter of the judgments fail, so a failed first repeat is
    followed by successful later ones (the packed repeats array would shift them)."""
    configs = (Configuration(model="m", harness="h1", workflow="direct"),
               Configuration(model="m", harness="h2", workflow="direct"))
    spec = SyntheticSpec(configs=configs, quality=[[0.7] * 5, [0.5] * 5], tasks=10,
                         judges=("solo",), repeats=3, noise=0.15, votes=0, images=False,
                         gate_failures=0.0, failed_judgments=0.25, seed=3)
    return synthetic_run(tmp_path_factory.mktemp("failing") / "run", spec)


def test_run_means_key_repeats_by_their_index(failing_store: RunStore) -> None:
    found = analyse(failing_store, Options(resamples=50)).table("run_means")
    status = {(j.artifact_sha256, j.repeat): j for j in failing_store.query(Judgment)}
    assert any(j.status != JudgmentStatus.OK and j.repeat == 0 for j in status.values())
    for row in found.rows:
        attempts = [a for a in failing_store.query(Attempt)
                    if a.config_id == row["config"] and a.status == AttemptStatus.SUCCEEDED]
        for repeat in range(3):
            totals = [j.total for a in attempts
                      if (j := status.get((a.output("slide"), repeat))) is not None
                      and j.status == JudgmentStatus.OK]
            assert row[f"run_{repeat + 1}"].value == pytest.approx(np.mean(totals))
        missing = {repeat: len(attempts) - sum(
            status[(a.output("slide"), repeat)].status == JudgmentStatus.OK for a in attempts)
            for repeat in range(3)}
        assert row["missing"] == ", ".join(
            f"run {r + 1}: {n} task{'s' * (n != 1)}" for r, n in missing.items() if n) or "none"


def test_axis_effects_cover_every_axis(hand, analysis, table_row) -> None:
    for kind, (treat, base) in (("workflow", (1, 0)), ("harness", (2, 0))):
        a, b = hand.matrix(treat), hand.matrix(base)
        both = np.isfinite(a).all(axis=1) & np.isfinite(b).all(axis=1)
        diff = a[both] - b[both]
        row = table_row(analysis, "axis_effects", kind=kind)
        assert row["n"] == both.sum()
        for k, axis in enumerate([*hand.axes, "total"]):
            cell = row[f"d_{axis}"]
            assert isinstance(cell, Estimate)
            assert cell.value == pytest.approx(diff[:, k].mean())
            interval = stats.bootstrap_ci(diff[:, k], resamples=RESAMPLES, seed=0)
            assert (cell.low, cell.high) == pytest.approx((interval.low, interval.high))
        assert row["d_total"].value == pytest.approx(sum(
            row[f"d_{axis}"].value for axis in hand.axes))


def _elo(analysis) -> dict[str, float]:
    return {row["config"]: row["elo"].value for row in analysis.table("elo").rows}


def test_judge_elo_pearson_against_scipy(hand, analysis, table_row) -> None:
    elo = _elo(analysis)
    assert len(elo) == 3
    for judge, totals in (("j1", {c: hand.matrix(c)[:, -1] for c in range(3)}),
                          ("j2", {c: np.array([hand.expected_j2[(c, t)] for t in range(6)])
                                  for c in range(3)})):
        x = [float(np.nanmean(totals[c])) for c in range(3)]
        y = [elo[config.id] for config in hand.configs]
        row = table_row(analysis, "judge_elo", judge=judge)
        assert row["n"] == 3
        assert row["pearson"] == Estimate(pytest.approx(sps.pearsonr(x, y).statistic))
        assert row["spearman"] == pytest.approx(sps.spearmanr(x, y).statistic)


def test_elo_weight_sweep_against_hand_weights(hand, analysis) -> None:
    table = analysis.table("elo_weights")
    elo = _elo(analysis)
    y = [elo[config.id] for config in hand.configs]
    total = hand.top.sum()
    means = []
    for c in range(3):
        cells = hand.matrix(c)[:, :-1]
        cells = cells[np.isfinite(cells).all(axis=1)]
        means.append((cells / hand.top).mean(axis=0))
    assert [row["weight"] for row in table.rows] == pytest.approx(
        [total * k / 20 for k in range(11)])
    for row in table.rows:
        w = row["weight"]
        for e, axis in enumerate(hand.axes):
            weights = [w if a == e else hand.top[a] * (total - w) / (total - hand.top[e])
                       for a in range(len(hand.axes))]
            scores = [float(np.dot(m, weights)) for m in means]
            assert row[axis] == pytest.approx(sps.pearsonr(scores, y).statistic, abs=1e-9)
    default = sps.pearsonr([float(np.dot(m, hand.top)) for m in means], y).statistic
    assert f"at the rubric's own weights r = {default:.3f}" in table.notes[0]


def test_fields_group_tasks_by_their_metadata(hand) -> None:
    data = RunData.load(hand.store)
    named = {"t0": {"field": "cs.CV"}, "t1": {"category": "cs.CV"}, "t2": {"field": "q-bio"},
             "t3": {"primary_category": "q-bio"}, "t4": {"field_guess": "physics"}, "t5": {}}
    data = replace(data, tasks={t: task.model_copy(update={"meta": named[t]})
                                for t, task in data.tasks.items()})
    table = next(fields(Context(data, Options(judge="j1"))))
    assert [row["field"] for row in table.rows] == ["cs.CV", "physics", "q-bio", NO_FIELD]
    groups = {"cs.CV": [0, 1], "physics": [4], "q-bio": [2, 3], NO_FIELD: [5]}
    for row in table.rows:
        assert row["tasks"] == len(groups[row["field"]])
        for c, config in enumerate(hand.configs):
            totals = [hand.matrix(c)[t, -1] for t in groups[row["field"]]]
            kept = [v for v in totals if np.isfinite(v)]
            assert row[config.id] == (pytest.approx(np.mean(kept)) if kept else None)
    assert table.insufficient is None


def test_tables_without_what_they_need_say_why(hand, analysis) -> None:
    assert analysis.table("fields").insufficient.startswith("the tasks name fewer than two")
    once = analyse(hand.store, Options(judge="j2", resamples=50))
    assert once.table("run_means").not_applicable.startswith("j2 judged this run once")
    assert once.table("run_effects").not_applicable is not None


def test_json_and_latex_hold_the_new_tables(
        failing_store: RunStore, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["report", str(failing_store.root), "--json", "--resamples", "100"]) == 0
    document = json.loads(capsys.readouterr().out)
    keys = ("run_means", "run_effects", "axis_effects", "judge_elo", "elo_weights", "fields")
    assert set(keys) <= set(document["tables"])
    row = document["tables"]["run_means"]["rows"][0]
    assert {"run_1", "run_2", "run_3", "pooled", "missing"} <= set(row)
    assert cli(["report", str(failing_store.root), "--latex", str(tmp_path), "-q",
                "--resamples", "100"]) == 0
    tex = (tmp_path / "tables" / "run_means.tex").read_text()
    assert "run 3" in tex and "mean of runs" in tex
    assert (tmp_path / "tables" / "axis_effects.tex").is_file()
