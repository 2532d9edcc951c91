"""Runs to annotate: synthetic run stores with PNG renders, several configurations, clusters."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from refig.models import Attempt, Configuration, Render
from refig.store import RunStore
from refig_toolkit_testing.synthetic import SyntheticSpec, synthetic_run

CONFIGS = [
    Configuration(model="m1", harness="h1", workflow="direct"),
    Configuration(model="m1", harness="h1", workflow="specialized"),
    Configuration(model="m1", harness="h2", workflow="direct"),
    Configuration(model="m2", harness="h1", workflow="direct"),
]
#: True quality per configuration (the same on every axis): the order votes should follow.
QUALITY = [0.55, 0.7, 0.4, 0.62]

MakeRun = Callable[..., RunStore]


@pytest.fixture
def make_run(tmp_path: Path) -> MakeRun:
    """A run with renders (PNG), gate failures, judgments and no votes; two tasks per figure."""

    def make(
        name: str = "run",
        *,
        tasks: int = 8,
        configs: int = 4,
        gate_failures: float = 0.15,
        seed: int = 3,
    ) -> RunStore:
        spec = SyntheticSpec(
            configs=CONFIGS[:configs],
            quality=[[q] * 5 for q in QUALITY[:configs]],
            tasks=tasks,
            tasks_per_figure=2,
            judges=("judge-a",),
            repeats=1,
            votes=0,
            gate_failures=gate_failures,
            failed_judgments=0.0,
            seed=seed,
        )
        return synthetic_run(tmp_path / name, spec)

    return make


def png_owners(store: RunStore) -> dict[str, tuple[str, str]]:
    """Render PNG hash -> (task, configuration), read from the records (not the page's code)."""
    png = {r.artifact_sha256: r.png_sha256 for r in store.iter(Render) if r.png_sha256}
    owners: dict[str, tuple[str, str]] = {}
    for attempt in store.iter(Attempt):
        slide = attempt.output("slide")
        if slide in png:
            owners[png[slide]] = (attempt.task_id, attempt.config_id)
    return owners


@pytest.fixture
def owners() -> Callable[[RunStore], dict[str, tuple[str, str]]]:
    return png_owners


@pytest.fixture
def quality() -> dict[str, float]:
    """Configuration id -> true quality of the runs ``make_run`` writes."""
    return {c.id: q for c, q in zip(CONFIGS, QUALITY, strict=True)}
