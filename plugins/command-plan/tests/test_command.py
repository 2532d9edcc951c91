"""`refig plan` comes from the plugin through `refig_commands`: it answers with a task count from
a judged pilot, as text or JSON, and refuses what it cannot plan with the cause and the fix."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from refig.cli import run
from refig.models import Configuration
from refig.store import RunStore
from refig_toolkit_testing.synthetic import SyntheticSpec, synthetic_run


@pytest.fixture(scope="module")
def pilot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pilot") / "run"
    configs = [Configuration(model="m", harness=h, workflow="direct") for h in ("h1", "h2")]
    synthetic_run(root, SyntheticSpec(
        configs=configs, quality=[[0.5] * 5, [0.55] * 5], tasks=16, tasks_per_figure=2,
        judges=("j",), repeats=2, votes=0, images=False, gate_failures=0.0,
        failed_judgments=0.0, task_spread=0.04, judgment_cost=0.01))
    return root


def _said(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    return " ".join((captured.out + captured.err).split())


def test_the_plugin_registers_refig_plan(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["list-plugins", "--json"]) == 0
    listed = {p["name"]: p for p in json.loads(capsys.readouterr().out)}
    assert (listed["refig-command-plan"]["status"], listed["refig-command-plan"]["hooks"]) == (
        "active", ["refig_commands"])
    assert run(["plan", "--help"]) == 0
    said = _said(capsys)
    for option in ("--effect", "--power", "--alpha", "--judge", "--pair", "--configs",
                   "--max-repeats", "--repeats", "--attempt-cost", "--judgment-cost", "--json"):
        assert option in said


def test_a_plan_answers_with_a_task_count(pilot: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["plan", str(pilot), "--effect", "4", "--power", "0.9"]) == 0
    said = _said(capsys)
    found = re.search(r"Recommended: (\d+) tasks with (\d) judge repeats? \(the cheapest\)", said)
    assert found is not None and int(found[1]) >= 2 and 1 <= int(found[2]) <= 5
    assert "several tasks per source figure" in said  # two tasks per figure
    assert run(["plan", str(pilot), "--effect", "4", "--power", "0.9", "--json",
                "--repeats", "3", "--judgment-cost", "1.5"]) == 0
    document = json.loads(capsys.readouterr().out)
    (row,) = document["plan"]["rows"]
    assert row["repeats"] == 3 and document["plan"]["reason"] == "the repeats asked for"
    assert row["judging_cost"] == pytest.approx(2 * row["tasks"] * 3 * 1.5)
    assert document["pilot"]["judgment_cost"] == pytest.approx(0.01)


@pytest.mark.parametrize(("extra", "cause"), [
    (["--effect", "0"], "the effect must be a positive number of points"),
    (["--effect", "3", "--power", "1.5"], "power must lie between"),
    (["--effect", "3", "--pair", "a@b/c", "m@h1/direct"], "--pair: a@b/c not in"),
    (["--effect", "3", "--judge", "nobody"], "judge 'nobody' has no judgments"),
])
def test_what_cannot_be_planned_is_refused(pilot: Path, capsys: pytest.CaptureFixture[str],
                                           extra: list[str], cause: str) -> None:
    assert run(["plan", str(pilot), *extra]) == 2
    assert cause in _said(capsys)


def test_a_run_without_judgments_or_a_folder_without_a_run(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = RunStore.create(tmp_path / "run").root
    assert run(["plan", str(empty), "--effect", "3"]) == 2
    assert "has no judgments to plan from" in _said(capsys)
    assert run(["plan", str(tmp_path), "--effect", "3"]) == 2
    assert "is not a refig run" in _said(capsys)
