"""``refig report --judge-run N``: every table from one judging run, checked against the means
computed straight from the stored judgments of that repeat."""

from __future__ import annotations

import json

import numpy as np
import pytest
from refig.cli import run as cli
from refig.models import (
    Attempt,
    AttemptStatus,
    Configuration,
    Judgment,
    JudgmentStatus,
    Preference,
)
from refig.store import RunStore
from refig_toolkit_testing.synthetic import SyntheticSpec, synthetic_run

CONFIGS = (Configuration(model="m", harness="h1", workflow="direct"),
           Configuration(model="m", harness="h2", workflow="direct"))


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> RunStore:
    """Three judging runs whose scores differ (noisy judge), no gate or judgment failures."""
    spec = SyntheticSpec(configs=CONFIGS, quality=[[0.7] * 5, [0.5] * 5], tasks=8,
                         judges=("solo",), repeats=3, noise=0.15, votes=60, images=False,
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


def test_direction_agreement_follows_the_papers_columns(
        store: RunStore, capsys: pytest.CaptureFixture[str]) -> None:
    """First run: every decisive vote kept (level pairs disagree); the mean of runs excludes
    them; bucket edges settable, the last bucket open."""
    decisive = sum(1 for p in store.query(Preference) if p.active and p.choice != "tie")
    first = _report(store, capsys, "--judge-run", "1", "--margin-buckets", "0,3,8")
    assert first["options"]["zero_margin"] == "disagree"
    assert first["options"]["buckets"] == [0, 3, 8, None]
    rows = first["tables"]["direction"]["rows"]
    assert [r["bucket"] for r in rows] == ["[0, 3)", "[3, 8)", "≥ 8", "all"]
    assert rows[-1]["decisive"] == decisive
    pooled = _report(store, capsys)
    assert pooled["options"]["zero_margin"] == "exclude"
    assert [r["bucket"] for r in pooled["tables"]["direction"]["rows"]] == [
        "[0, 2) tie", "[2, 5)", "[5, 10)", "≥ 10", "all"]


def test_margin_buckets_that_do_not_increase_exit_2(
        store: RunStore, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["report", str(store.root), "--margin-buckets", "0,5,5", "-q"]) == 2
    assert "--margin-buckets" in capsys.readouterr().err
