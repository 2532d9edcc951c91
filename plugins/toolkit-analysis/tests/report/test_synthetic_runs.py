"""The analysis layer on synthetic runs: too little data, judgments of older inputs, and a
clustered run checked against a brute-force recomputation from its records."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from refig.cli import run as cli
from refig.console import out as console
from refig.models import (
    Attempt,
    AttemptStatus,
    Configuration,
    Judgment,
    JudgmentStatus,
    MetricValue,
    Task,
)
from refig.store import RunStore
from refig_toolkit_analysis import stats
from refig_toolkit_analysis.analysis import Options, analyse
from refig_toolkit_testing.synthetic import SyntheticSpec, synthetic_run

A = Configuration(model="m", harness="h1", workflow="direct")
B = Configuration(model="m", harness="h1", workflow="specialized")


def plain_spec(**spec: Any) -> SyntheticSpec:
    """A synthetic run with one judge, one repeat, no votes, images, or failures."""
    return SyntheticSpec(judges=("solo",), repeats=1, votes=0, images=False, gate_failures=0.0,
                         failed_judgments=0.0, **spec)


def test_small_runs_say_too_little_data(
    tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(console, "width", 220)
    spec = plain_spec(configs=[A], quality=[[0.5] * 5], tasks=3)
    store = synthetic_run(tmp_path / "small", spec)
    analysis = analyse(store, Options(resamples=200))
    for key in (
        "effects",
        "repeatability",
        "judge_agreement",
        "elo",
        "direction",
        "weights",
        "weight_ranking",
    ):
        table = analysis.table(key)
        assert table is not None and table.insufficient, key
    means = analysis.table("means")
    assert means is not None and means.rows[0]["total"].low is None  # 3 tasks: no interval
    assert cli(["report", str(store.root), "-q"]) == 0
    text = capsys.readouterr().out
    assert text.count("too little data") >= 6
    empty = RunStore.create(tmp_path / "empty")
    assert cli(["report", str(empty.root), "-q"]) == 0
    assert "no attempts in this run yet" in capsys.readouterr().out


def test_judgments_of_older_inputs_are_not_further_repeats(tmp_path: Path) -> None:
    spec = plain_spec(configs=[A, B], quality=[[0.5] * 5, [0.6] * 5], tasks=6)
    store = synthetic_run(tmp_path / "run", spec)
    before = analyse(store, Options(resamples=200))
    # The same judge and repeat, a day earlier, on another rendering: stored under its own key.
    stale = [
        j.model_copy(
            update={
                "inputs_sha256": "an older rendering",
                "created_at": j.created_at - timedelta(days=1),
                "scores": tuple(s.model_copy(update={"score": 0.0}) for s in j.scores),
                "total": 0.0,
            }
        )
        for j in store.query(Judgment)
    ]
    assert store.put_many(stale) == len(stale)
    after = analyse(store, Options(resamples=200))
    assert after.table("means").rows == before.table("means").rows
    assert {r["repeats"] for r in after.table("task_scores").rows} == {1}


def test_synthetic_run_with_clusters_matches_brute_force(tmp_path: Path, table_row) -> None:
    configs = [
        Configuration(model="m", harness=h, workflow=w)
        for h in ("h1", "h2")
        for w in ("direct", "specialized")
    ]
    quality = [
        [0.6, 0.5, 0.5, 0.4, 0.5],
        [0.6, 0.6, 0.5, 0.7, 0.5],
        [0.5, 0.4, 0.5, 0.3, 0.6],
        [0.5, 0.5, 0.4, 0.6, 0.6],
    ]
    spec = SyntheticSpec(
        configs=configs, quality=quality, tasks=16, tasks_per_figure=2, votes=80, images=False
    )
    store = synthetic_run(tmp_path / "run", spec)
    analysis = analyse(store, Options(judge="judge-a", resamples=1000, elo_resamples=200))
    # Brute force from the records: latest success, final gate, mean of ok repeats; a cell
    # whose last try failed on the provider (api_error) is left out.
    attempts, last = {}, {}
    for a in store.query(Attempt):
        last[(a.task_id, a.config_id)] = a  # key order: the latest try wins
        if a.status == AttemptStatus.SUCCEEDED:
            attempts[(a.task_id, a.config_id)] = a
    gate = {m.artifact_sha256: m.value for m in store.query(MetricValue, metric="gate")}
    judged: dict[str, list[float]] = {}
    for j in store.query(Judgment):
        if j.judge == "judge-a" and j.status == JudgmentStatus.OK:
            judged.setdefault(j.artifact_sha256, []).append(j.total or 0.0)
    tasks = {t.id: t.cluster_id for t in store.query(Task)}
    for config in configs:
        values, clusters = [], []
        for task_id in sorted(tasks):
            attempt = attempts.get((task_id, config.id))
            error = last[(task_id, config.id)].error
            if attempt is None and error is not None and error.kind == "api_error":
                continue
            if attempt is None or gate.get(attempt.output("slide")) == 0.0:
                values.append(0.0)
            elif attempt.output("slide") in judged:
                values.append(float(np.mean(judged[attempt.output("slide")])))
            else:
                continue
            clusters.append(tasks[task_id])
        row = table_row(analysis, "means", config=config.id)
        assert row["total"].value == pytest.approx(np.mean(values))
        ref = stats.cluster_bootstrap_ci(values, clusters, resamples=1000, seed=0)
        assert isinstance(ref, stats.Interval)
        assert (row["total"].low, row["total"].high) == pytest.approx((ref.low, ref.high))
    assert analysis.table("elo").insufficient is None
    assert len(analysis.table("effects").rows) == 4  # two workflow pairs, two harness pairs
