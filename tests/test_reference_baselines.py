"""Baselines that read a task's hidden references (deck-edit's ``oracle``, figure-to-code's
``reference``) find them in the run's own ``--suite``: no ``--harness-opt suite=`` needed."""

from __future__ import annotations

from pathlib import Path

import pytest
from refig.cli import run
from refig.models import Attempt, AttemptStatus
from refig.plugins import Registry
from refig.store import RunStore

BUILDS = {
    "oracle": ["deck-sample", "-n", "2"],
    "reference": ["code-sample", "--language", "python", "--category", "statistical"],
}


@pytest.mark.parametrize("harness", sorted(BUILDS))
def test_a_reference_baseline_reads_the_runs_own_suite(harness: str, tmp_path: Path) -> None:
    builder, *params = BUILDS[harness]
    registry = Registry.load(warn=lambda _: None)
    if builder not in registry.names("suite") or harness not in registry.names("harness"):
        pytest.skip(f"{builder} or {harness} is not installed")
    suite, out = tmp_path / "suite", tmp_path / "run"
    assert run(["suite", "build", builder, "--out", str(suite), *params, "-q"]) == 0
    assert run(["run", "--suite", str(suite), "--harness", harness, "--out", str(out), "-q"]) == 0
    attempts = RunStore.open(out).query(Attempt)
    assert attempts and all(a.status is AttemptStatus.SUCCEEDED for a in attempts), [
        a.error for a in attempts
    ]
    # the suite's path is where this machine keeps it, not part of the configuration
    assert {a.config_id for a in attempts} == {f"none@{harness}/direct"}
