"""``refig view RUN --judge-run N``: the viewer's tables hold judging run N alone, as
``refig report --judge-run N`` does; a folder of runs, or a run without that judging run,
exits 2 naming the cause."""

from __future__ import annotations

from pathlib import Path

import pytest
from refig.cli import run as cli
from refig.models import Configuration
from refig.store import RunStore
from refig_reporter_html.snapshot import LiveRun
from refig_toolkit_analysis.analysis import Options, analyse
from refig_toolkit_testing.synthetic import SyntheticSpec, synthetic_run


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> RunStore:
    configs = (Configuration(model="m", harness="h1", workflow="direct"),
               Configuration(model="m", harness="h2", workflow="direct"))
    spec = SyntheticSpec(configs=configs, quality=[[0.7] * 5, [0.5] * 5], tasks=6,
                         judges=("solo",), repeats=2, noise=0.2, votes=0, images=False)
    return synthetic_run(tmp_path_factory.mktemp("runs") / "run", spec)


def _totals(analysis) -> dict[str, float]:
    return {r["config"]: r["total"].value for r in analysis.table("means").rows}


def test_the_viewer_shows_one_judging_run(run: RunStore) -> None:
    snapshot = LiveRun(run.root, judge_run=2, background=False).snapshot()
    assert snapshot.data.judge_run == 2
    shown = _totals(snapshot.analysis())
    assert shown == _totals(analyse(run.root, Options(judge_run=2, resamples=100)))
    assert shown != _totals(analyse(run.root, Options(resamples=100)))


def test_judge_run_the_run_lacks_or_a_folder_exits_2(
        run: RunStore, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["view", str(run.root), "--judge-run", "3", "-q", "--port", "0"]) == 2
    said = " ".join(capsys.readouterr().err.split())
    assert "2 judging runs (1 to 2)" in said
    folder: Path = run.root.parent
    assert cli(["view", str(folder), "--judge-run", "1", "-q", "--port", "0"]) == 2
    assert "folder of runs" in " ".join(capsys.readouterr().err.split())
