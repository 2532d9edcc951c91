"""Stored objects are verified when read for work: a lost or damaged object is a store error
naming it, never a verdict against the agent, and the work is done once the object is whole.

A real run (the sample suite, the cv baseline, real LibreOffice, the default metrics and the
offline ``metrics`` judge); objects deleted, overwritten and put back between real commands.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from refig.engine.stages import GATE_METRIC
from refig.models import Attempt, Judgment, MetricValue, Render, Task
from refig.plugins import Registry
from refig.records import PluginKind
from refig.store import RunStore

pytestmark = pytest.mark.slow


def refig(*args: str) -> subprocess.CompletedProcess[str]:
    command = [str(Path(sys.executable).parent / "refig"), *args]
    return subprocess.run(command, capture_output=True, text=True, env=dict(os.environ),
                          timeout=900, check=False)


def ok(*args: str) -> None:
    done = refig(*args)
    assert done.returncode == 0, done.stderr


def evaluate(run: Path) -> subprocess.CompletedProcess[str]:
    return refig("evaluate", str(run), "-q", "--judge", "metrics")


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A suite and a run of it, recorded but not yet evaluated."""
    names = Registry.load(warn=lambda _: None).names
    if "sample" not in names(PluginKind.SUITE) or "cv" not in names(PluginKind.HARNESS):
        pytest.skip("the sample suite and the cv baseline are not installed")
    root = tmp_path_factory.mktemp("damage")
    suite, run = root / "suite", root / "run"
    ok("suite", "build", "sample", "--out", str(suite), "-n", "2", "-q")
    ok("run", "--suite", str(suite), "--harness", "cv", "--out", str(run), "--workspace-root",
       str(root / "attempts"), "-q")
    return suite, run


def fresh(made: tuple[Path, Path], tmp_path: Path) -> Path:
    copy = tmp_path / "run"
    shutil.copytree(made[1], copy)
    return copy


def gates(store: RunStore) -> dict[str, float | None]:
    return {v.artifact_sha256: v.value for v in store.iter(MetricValue) if v.metric == GATE_METRIC}


def totals(store: RunStore) -> dict[tuple[str, int], float | None]:
    return {(j.artifact_sha256, j.repeat): j.total for j in store.iter(Judgment)}


@pytest.fixture(scope="module")
def clean(made: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory):
    run = fresh(made, tmp_path_factory.mktemp("clean"))
    assert evaluate(run).returncode == 0
    store = RunStore.open(run)
    return gates(store), totals(store)


def test_a_lost_slide_is_a_store_error_then_scored_once_put_back(made, clean, tmp_path):
    run = fresh(made, tmp_path)
    store = RunStore.open(run)
    slide = sorted(a.output("slide") for a in store.iter(Attempt) if a.output("slide"))[0]
    path = store.objects.path(slide)
    kept = path.read_bytes()
    path.unlink()
    done = evaluate(run)
    assert done.returncode == 1
    message = " ".join(done.stderr.split())
    assert slide[:16] in message and "slide of attempt" in message
    assert str(run) in message and "refig repair" in message
    assert slide not in gates(store)  # no verdict against the agent: not `missing`, no 0
    assert len(gates(store)) == len(clean[0]) - 1  # the other slides were evaluated
    path.write_bytes(b"overwritten" * 10)  # damaged bytes are no better than none
    assert evaluate(run).returncode == 1 and slide not in gates(store)
    path.write_bytes(kept)
    assert evaluate(run).returncode == 0
    assert gates(store) == clean[0] and totals(store) == clean[1]


def test_a_damaged_source_leaves_its_task_unjudged_until_repaired(made, clean, tmp_path):
    suite, _ = made
    run = fresh(made, tmp_path)
    store = RunStore.open(run)
    task = sorted(store.iter(Task), key=lambda t: t.id)[0]
    store.objects.path(task.input("figure").sha256).write_bytes(b"not the figure")
    done = evaluate(run)
    assert done.returncode == 1 and f"figure of task {task.id}" in done.stderr
    judged = {sha for sha, _ in totals(store)}
    slides = {a.output("slide") for a in store.iter(Attempt) if a.task_id == task.id}
    assert not judged & slides  # nothing scored without its source
    repaired = refig("repair", str(run), "--suite", str(suite), "-q")
    assert repaired.returncode == 0, repaired.stderr
    assert evaluate(run).returncode == 0
    assert totals(store) == clean[1]


def test_a_lost_rendering_is_made_again_and_judged_once(made, clean, tmp_path):
    run = fresh(made, tmp_path)
    assert evaluate(run).returncode == 0
    store = RunStore.open(run)
    render = next(r for r in store.iter(Render) if r.png_sha256)
    store.objects.path(render.png_sha256).unlink()
    assert evaluate(run).returncode == 0  # rendered again: the same bytes
    assert store.objects.path(render.png_sha256).is_file()
    assert store.count(Judgment) == len(clean[1]) and totals(store) == clean[1]
    store.objects.path(render.png_sha256).write_bytes(b"damaged")
    repaired = refig("repair", str(run), "--json")
    assert repaired.returncode == 0, repaired.stderr
    assert '"renders_remade": 1' in repaired.stdout
    assert evaluate(run).returncode == 0 and store.count(Judgment) == len(clean[1])


def test_repair_lists_what_cannot_be_made_again(made, tmp_path):
    run = fresh(made, tmp_path)
    store = RunStore.open(run)
    attempt = next(a for a in store.iter(Attempt) if "log" in a.outputs)
    store.objects.path(attempt.outputs["log"]).unlink()
    repaired = refig("repair", str(run))
    assert repaired.returncode == 1
    assert f"log of attempt {attempt.task_id}" in repaired.stderr and "lost" in repaired.stderr
    assert attempt.outputs["log"] in (store.get_meta("damaged_objects") or "")


def test_forget_lost_removes_the_attempt_and_a_rerun_makes_it_again(made, clean, tmp_path):
    suite, _ = made
    run = fresh(made, tmp_path)
    store = RunStore.open(run)
    slide = sorted(a.output("slide") for a in store.iter(Attempt) if a.output("slide"))[0]
    store.objects.path(slide).write_bytes(b"overwritten")
    kept = refig("repair", str(run))
    assert kept.returncode == 1 and "--forget-lost" in kept.stderr  # names the command
    forgot = refig("repair", str(run), "--forget-lost")
    assert forgot.returncode == 0, forgot.stderr
    assert "forgotten: attempt" in forgot.stderr and "refig run" in forgot.stderr
    assert not [a for a in store.iter(Attempt) if a.output("slide") == slide]
    ok("run", "--suite", str(suite), "--harness", "cv", "--out", str(run), "--workspace-root",
       str(tmp_path / "attempts"), "-q")
    assert evaluate(run).returncode == 0
    # the attempt was made again (cv's slide bytes differ run to run), gated and judged
    slides = {a.output("slide") for a in store.iter(Attempt)}
    assert len(slides) == len(clean[0]) and slide not in slides
    made_gates = gates(store)
    assert sorted(made_gates[s] for s in slides) == sorted(clean[0].values())
    assert slides <= {sha for sha, _ in totals(store)}
