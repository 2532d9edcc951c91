"""``refig report --judge-run N``: every table from one judging run, checked against the means
computed straight from the stored judgments of that repeat."""

from __future__ import annotations

import json

import numpy as np
import pytest
from refig.cli import run as cli
from refig.models import Attempt, AttemptStatus, Configuration, Judgment, JudgmentStatus
from refig.store import RunStore
from refig_toolkit_testing.synthetic import SyntheticSpec, synthetic_run

CONFIGS = (Configuration(model="m", harness="h1", workflow="direct"),
           Configuration(model="m", harness="h2", workflow="direct"))


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> RunStore:
    """Three judging runs whose scores differ (noisy judge), no gate or judgment failures."""
    spec = SyntheticSpec(configs=CONFIGS, quality=[[0.7] * 5, [0.5] * 5], tasks=8,
                         judges=("solo",), repeats=3, noise=0.15, votes=0, images=False,
                         gate_failures=0.0, failed_judgments=0.0)
    return synthetic_run(tmp_path_factory.mktemp("judge-run") / "run", spec)


def _means_by_hand(store: RunStore, repeat: int | None) -> dict[str, float]:
    """Per configuration: the mean over tasks of the repeat's total (or of the repeats' mean)."""
    totals: dict[str, list[float]] = {}
    for j in store.query(Judgment):
        if j.status == JudgmentStatus.OK and (repeat is None or j.repeat == repeat):
            totals.setdefault(j.artifact_sha256, []).append(j.total or 0.0)
    means: dict[str, list[float]] = {}
    for attempt in store.query(Attempt):
        if attempt.status == AttemptStatus.SUCCEEDED:
            cell = totals[attempt.output("slide")]
            means.setdefault(attempt.config_id, []).append(float(np.mean(cell)))
    return {config: float(np.mean(values)) for config, values in means.items()}


def _report(store: RunStore, capsys: pytest.CaptureFixture[str], *extra: str) -> dict:
    assert cli(["report", str(store.root), "--json", "--resamples", "100", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def _means(document: dict) -> dict[str, float]:
    return {row["config"]: row["total"]["estimate"]
            for row in document["tables"]["means"]["rows"]}


def test_judge_run_means_are_that_repeats_means(
        store: RunStore, capsys: pytest.CaptureFixture[str]) -> None:
    first = _report(store, capsys, "--judge-run", "1")
    assert first["judging"] == "judging run 1 of 3"
    assert first["options"]["judge_run"] == 1
    assert "scores: judging run 1 of 3" in first["tables"]["means"]["notes"]
    by_hand = _means_by_hand(store, repeat=0)
    assert _means(first) == pytest.approx(by_hand, abs=1e-9)
    pooled = _report(store, capsys)
    assert pooled["judging"].startswith("mean of 3 judging runs")
    assert _means(pooled) == pytest.approx(_means_by_hand(store, repeat=None), abs=1e-9)
    assert all(abs(_means(pooled)[c] - by_hand[c]) > 1e-6 for c in by_hand)  # repeats differ
    third = _report(store, capsys, "--judge-run", "3")
    assert _means(third) == pytest.approx(_means_by_hand(store, repeat=2), abs=1e-9)


def test_judge_run_beyond_the_runs_repeats_exits_2(
        store: RunStore, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["report", str(store.root), "--judge-run", "4", "-q"]) == 2
    said = " ".join(capsys.readouterr().err.split())  # the console wraps lines
    assert "3 judging runs (1 to 3)" in said and "--judge-run" in said
