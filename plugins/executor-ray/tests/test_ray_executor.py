"""The ``ray`` executor on a real local Ray cluster (started once for the module: Ray is slow to
start), through its contract and through ``refig run --executor ray``."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from PIL import Image
from refig.cli import run as refig_main
from refig.models import Attempt, AttemptStatus
from refig.plugins import Registry
from refig.store import RunStore
from refig.suite import SuiteWriter

ray = pytest.importorskip("ray")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def square_or_fail(n: int) -> tuple[int, int]:
    if n == 3:
        raise ValueError("three is refused")
    return os.getpid(), n * n


@dataclass(frozen=True)
class Offset:
    """A callable object, like the evaluation's stages (RenderBatch, MeasureSource)."""

    by: int

    def __call__(self, n: int) -> tuple[int, int]:
        return os.getpid(), n + self.by


def test_map_takes_a_callable_object_like_the_evaluation_stages(cluster: None) -> None:
    executor = Registry.load(warn=lambda _: None).resolve("executor", "ray").create()
    try:
        results = dict(executor.map(Offset(100), [1, 2, 3], jobs=2))
    finally:
        executor.close()
    assert {n: r[1] for n, r in results.items()} == {1: 101, 2: 102, 3: 103}
    assert all(r[0] != os.getpid() for r in results.values())


def test_map_runs_items_in_workers_and_returns_errors_per_item(cluster: None) -> None:
    executor = Registry.load(warn=lambda _: None).resolve("executor", "ray").create()
    try:
        results = dict(executor.map(square_or_fail, list(range(6)), jobs=3))
    finally:
        executor.close()
    assert ray.is_initialized(), "an executor must not stop a cluster it did not start"
    assert set(results) == set(range(6))
    assert isinstance(results[3], ValueError) and "refused" in str(results[3])
    values = {n: r for n, r in results.items() if n != 3}
    assert {n: v[1] for n, v in values.items()} == {n: n * n for n in values}
    assert all(v[0] != os.getpid() for v in values.values()), "work ran in Ray workers"


def test_refig_run_on_ray_records_attempts_from_the_driver(
        cluster: None, tmp_path: Path) -> None:
    writer = SuiteWriter(tmp_path / "suite", name="ray", family="figure-to-slide", builder="test")
    for index, color in enumerate(("red", "green", "blue", "gray")):
        buffer = io.BytesIO()
        Image.new("RGB", (320, 160), color).save(buffer, "PNG")
        writer.add(f"t{index}", f"t{index}.png", buffer.getvalue())
    writer.finish()
    out = tmp_path / "run"
    code = refig_main(["run", "--suite", str(tmp_path / "suite"), "--harness", "raster-paste",
                       "--out", str(out), "--executor", "ray", "-j", "2", "-q",
                       "--workspace-root", str(tmp_path / "attempts")])
    assert code == 0
    attempts = RunStore.open(out).query(Attempt)
    assert len(attempts) == 4 and {a.status for a in attempts} == {AttemptStatus.SUCCEEDED}
    assert all("slide" in a.outputs for a in attempts)
    again = refig_main(["run", "--suite", str(tmp_path / "suite"), "--harness", "raster-paste",
                        "--out", str(out), "--executor", "ray", "-q",
                        "--workspace-root", str(tmp_path / "attempts")])
    assert again == 0 and RunStore.open(out).count(Attempt) == 4
