"""Two real ``refig evaluate`` processes over one run split inspection, rendering and metrics
(each item is done once, by one of them), and a killed evaluation's claims are taken over.

A real run (the sample suite, the cv baseline), real LibreOffice and the default metrics.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from refig.engine.stages import GATE_METRIC
from refig.models import Inspection, MetricValue, Render
from refig.plugins import Registry
from refig.records import PluginKind
from refig.store import RunStore

pytestmark = pytest.mark.slow

TASKS = 6
REFIG = str(Path(sys.executable).parent / "refig")


def ok(*args: str) -> None:
    done = subprocess.run([REFIG, *args], capture_output=True, text=True, timeout=900,
                          check=False)
    assert done.returncode == 0, done.stderr


def evaluate(run: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([REFIG, "evaluate", str(run), "--json", "--jobs", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def claims(run: Path) -> list[str]:
    """The items claimed in the run's store now (read-only: the store is in use)."""
    db = sqlite3.connect(f"file:{run / 'refig.db'}?mode=ro", uri=True, timeout=30)
    try:
        return [row[0] for row in db.execute("SELECT item FROM claims")]
    except sqlite3.OperationalError:  # the table is not made yet
        return []
    finally:
        db.close()


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run of the sample suite, recorded but not yet evaluated."""
    names = Registry.load(warn=lambda _: None).names
    if "sample" not in names(PluginKind.SUITE) or "cv" not in names(PluginKind.HARNESS):
        pytest.skip("the sample suite and the cv baseline are not installed")
    if shutil.which("soffice") is None:
        pytest.skip("LibreOffice is not installed")
    root = tmp_path_factory.mktemp("concurrent")
    suite, run = root / "suite", root / "run"
    ok("suite", "build", "sample", "--out", str(suite), "-n", str(TASKS), "-q")
    ok("run", "--suite", str(suite), "--harness", "cv", "--out", str(run), "--workspace-root",
       str(root / "attempts"), "-q")
    return run


def fresh(made: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "run"
    shutil.copytree(made, copy)
    return copy


def test_two_evaluations_split_the_work(made, tmp_path):
    run = fresh(made, tmp_path)
    racers = [evaluate(run), evaluate(run)]
    outputs = [racer.communicate(timeout=900) for racer in racers]
    for racer, (_, errors) in zip(racers, outputs, strict=True):
        assert racer.returncode == 0, errors
    stages = [json.loads(out)["stages"] for out, _ in outputs]
    store = RunStore.open(run)
    renders = store.query(Render)
    assert len(renders) == TASKS
    # each item was inspected and rendered by exactly one of them
    assert sum(s["inspected"] for s in stages) == TASKS
    assert sum(s["rendered"] for s in stages) == TASKS
    measured = [v for v in store.iter(MetricValue) if v.metric != GATE_METRIC]
    assert measured and sum(s["metric_values"] for s in stages) == len(measured)
    for s in stages:  # and each saw every item done, here or by the other
        assert s["inspected"] + s["already_stored"].get("inspect", 0) == TASKS
        assert s["rendered"] + s["already_stored"].get("render", 0) == TASKS
    assert claims(run) == []


def test_a_killed_evaluations_claims_are_taken_over(made, tmp_path):
    run = fresh(made, tmp_path)
    first = evaluate(run)
    deadline = time.monotonic() + 600
    while not any(item.startswith("render:") for item in claims(run)):
        assert first.poll() is None, first.communicate()[1]
        assert time.monotonic() < deadline, "no rendering was claimed"
        time.sleep(0.05)
    os.killpg(first.pid, signal.SIGKILL)
    first.wait()
    left = claims(run)
    assert any(item.startswith("render:") for item in left)  # the dead owner's lease
    second = evaluate(run)
    out, errors = second.communicate(timeout=900)
    assert second.returncode == 0, errors
    stages = json.loads(out)["stages"]
    store = RunStore.open(run)
    assert len(store.query(Inspection)) == TASKS
    assert len(store.query(Render)) == TASKS
    assert stages["rendered"] >= 1  # what the killed one held was rendered here
    assert claims(run) == []
