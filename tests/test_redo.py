"""`refig run --redo`: after a change to a harness's code (which the configuration id cannot
see), the same `--out` runs every task again instead of saying "already done", and each task's
latest succeeded try is what evaluation and the report read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from refig.cli import run
from refig.models import Attempt
from refig.plugins import Registry
from refig.store import RunStore
from refig_toolkit_analysis.analysis.rundata import RunData


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if "sample" not in Registry.load(warn=lambda _: None).names("suite"):
        pytest.skip("the sample suite builder is not installed")
    out = tmp_path_factory.mktemp("redo") / "suite"
    assert run(["suite", "build", "sample", "--out", str(out), "-n", "2", "-q"]) == 0
    return out


def _run(suite: Path, out: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict:
    assert (
        run(
            [
                "run",
                "--suite",
                str(suite),
                "--harness",
                "raster-paste",
                "--out",
                str(out),
                "-q",
                "--json",
                *extra,
            ]
        )
        == 0
    )
    return json.loads(capsys.readouterr().out)


def test_redo_runs_every_done_task_again_as_a_new_try(suite, tmp_path, capsys):
    out = tmp_path / "run"
    assert _run(suite, out, capsys)["succeeded"] == 2
    again = _run(suite, out, capsys)
    assert (again["planned"], again["skipped_done"]) == (0, 2)
    assert (
        run(["run", "--suite", str(suite), "--harness", "raster-paste", "--out", str(out), "-q"])
        == 0
    )
    assert "--redo runs them again" in " ".join(capsys.readouterr().out.split())
    redone = _run(suite, out, capsys, "--redo")
    assert (redone["planned"], redone["succeeded"], redone["skipped_done"]) == (2, 2, 0)
    store = RunStore.open(out)
    tries = sorted((a.task_id, a.try_index) for a in store.query(Attempt))
    assert [t for _, t in tries] == [0, 1, 0, 1]
    chosen = {key: o.attempt.try_index for key, o in RunData.load(store).outcomes.items()}
    assert set(chosen.values()) == {1}  # the redone try is the one read
