"""A run's manifest, its locked plan and `refig compare`, end to end through the command line:
one slide rendered by the real LibreOffice, one metric, the model-free `metrics` judge.

The report carries the environment each stage ran in; judging with an edited rubric after
`refig lock` is a deviation (refused under `--strict`, else recorded and listed first by the
report, whose `--strict` then exits 1); two runs with different environments are listed by
`refig compare`, with the numbers they make incomparable."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from PIL import Image
from pptx import Presentation
from pptx.enum.shapes import MSO_SHAPE
from pptx.util import Emu
from refig.cli import run as refig
from refig.models import Asset, Attempt, AttemptStatus, Configuration, Judgment, Task
from refig.provenance import environments, latest, read_lock, record_environment
from refig.store import RunStore
from refig_family_figure_to_slide.hooks import RUBRIC

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("soffice") is None, reason="needs LibreOffice")]

PLAN = ["--metric", "connector-audit", "--judge", "metrics"]


def _png() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (320, 180), "red").save(buffer, format="PNG")
    return buffer.getvalue()


def _deck() -> bytes:
    prs = Presentation()
    prs.slide_width, prs.slide_height = Emu(12_192_000), Emu(6_858_000)
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    slide.shapes.add_shape(MSO_SHAPE.OVAL, 0, 0, Emu(2_000_000), Emu(900_000)).text = "box"
    buffer = io.BytesIO()
    prs.save(buffer)
    return buffer.getvalue()


@pytest.fixture(scope="module")
def locked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A one-attempt run, locked and then evaluated as locked (the evaluation's snapshot is
    copied by each test that changes it)."""
    root = tmp_path_factory.mktemp("provenance") / "run"
    store = RunStore.create(root)
    figure = store.objects.put_bytes(_png())
    store.put(Task(id="t1", family="figure-to-slide",
                   inputs={"figure": Asset(path="a.png", sha256=figure)}))
    config = Configuration(model="m", harness="h", workflow="direct")
    store.put(config)
    store.put(Attempt(task_id="t1", config_id=config.id, status=AttemptStatus.SUCCEEDED,
                      outputs={"slide": store.objects.put_bytes(_deck())}))
    assert refig(["lock", str(root), *PLAN, "--resamples", "100"]) == 0
    assert refig(["evaluate", str(root), *PLAN, "-q", "--strict"]) == 0
    return root


@pytest.fixture
def run(locked: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "run"
    shutil.copytree(locked, copy)
    return copy


def _report(run: Path, capsys: pytest.CaptureFixture[str], *options: str) -> dict:
    capsys.readouterr()
    assert refig(["report", str(run), "--json", "--resamples", "100", *options]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_report_carries_each_stages_environment(locked, capsys) -> None:
    report = _report(locked, capsys)
    environment = report["provenance"]["environment"]
    assert set(environment) == {"software", "suite", "render", "measure", "judge"}
    render = environment["render"]["entries"]
    assert render["renderer.libreoffice.version"].startswith("LibreOffice")
    assert len(render["renderer.libreoffice.font_files_sha256"]) == 64
    assert int(render["renderer.libreoffice.fonts"]) > 0
    assert environment["measure"]["entries"] == {"metric.connector-audit.version": "2"}
    assert "plugin.refig-core" in environment["software"]["entries"]
    assert "executor.local" not in str(environment["software"]["entries"])  # reports nothing
    judge = environment["judge"]["entries"]
    assert set(judge) == {"judge.metrics.key", "rubric.sha256"}
    rows = report["tables"]["environment"]["rows"]
    assert {r["entry"] for r in rows} >= {"renderer.libreoffice.version",
                                         "metric.connector-audit.version", "suite"}
    assert next(iter(report["tables"])) == "deviations"
    deviations = report["tables"]["deviations"]
    assert deviations["rows"] == [] and deviations["not_applicable"].startswith("none")
    assert report["provenance"]["lock"]["plan"]["metric.connector-audit"] == "2"
    # the golden canary passed before the numbers were added, in one environment
    canary = report["provenance"]["canary"]
    assert canary["status"] == "passed" and canary["environments"] == [canary["environment"]]
    assert "golden canary at the last evaluation: passed" in \
        report["tables"]["environment"]["notes"]


def test_a_second_evaluation_with_nothing_to_do_records_nothing_new(run) -> None:
    before = environments(RunStore.open(run))
    assert refig(["evaluate", str(run), *PLAN, "-q"]) == 0
    assert environments(RunStore.open(run)) == before


def test_judging_with_an_edited_rubric_after_the_lock_is_a_deviation(run, tmp_path,
                                                                      capsys) -> None:
    edited = tmp_path / "rubric.toml"
    text = RUBRIC.read_text(encoding="utf-8")
    edited.write_text(text.replace("You grade how well", "You grade strictly how well", 1),
                      encoding="utf-8")
    store = RunStore.open(run)
    judged = store.count(Judgment)
    argv = ["evaluate", str(run), *PLAN, "--rubric", str(edited), "-q"]

    assert refig([*argv, "--strict"]) == 1  # refused before any work
    assert "rubric: locked" in capsys.readouterr().err
    assert store.count(Judgment) == judged

    assert refig(argv) == 0  # done, and the deviation recorded
    assert store.count(Judgment) == judged + 1
    report = _report(run, capsys)
    [row] = report["tables"]["deviations"]["rows"]
    lock = read_lock(store)
    assert lock is not None
    assert row["entry"] == "rubric" and row["locked"] == lock.plan["rubric"][:12]
    assert row["stage"] == "evaluate"
    assert report["provenance"]["deviations"][0]["used"] != lock.plan["rubric"]
    assert refig(["report", str(run), "-q", "--resamples", "100", "--strict"]) == 1
    assert "1 deviations from the run's locked plan: rubric" in capsys.readouterr().err


def test_report_options_other_than_locked_are_deviations(run, capsys) -> None:
    report = _report(run, capsys, "--seed", "7")
    [row] = report["tables"]["deviations"]["rows"]
    assert (row["entry"], row["locked"], row["used"], row["stage"]) == (
        "stats.seed", "0", "7", "report")
    assert refig(["report", str(run), "-q", "--resamples", "100", "--seed", "7", "--strict"]) == 1
    assert refig(["report", str(run), "-q", "--resamples", "100", "--strict"]) == 0


def test_a_lock_is_not_replaced_unless_asked(run, capsys) -> None:
    assert refig(["lock", str(run), *PLAN]) == 2
    assert "--replace" in capsys.readouterr().err
    assert refig(["lock", str(run), "--metric", "connector-audit", "--replace"]) == 0
    lock = read_lock(RunStore.open(run))
    assert lock is not None and "judge.metrics" not in lock.plan


def test_compare_lists_what_differs_and_which_numbers_compare(locked, run, capsys) -> None:
    store = RunStore.open(run)
    render = latest(store)["render"].entries
    record_environment(store, "render", {**render, "renderer.libreoffice.fonts": "0"})
    capsys.readouterr()
    assert refig(["compare", str(locked), str(locked), "--json"]) == 0
    same = json.loads(capsys.readouterr().out)
    assert same["differences"] == [] and all(v["comparable"] for v in same["numbers"])

    assert refig(["compare", str(locked), str(run), "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["differences"] == [{"stage": "render", "entry": "renderer.libreoffice.fonts",
                                     "a": render["renderer.libreoffice.fonts"],
                                     "b": " | ".join(sorted(["0", render[
                                         "renderer.libreoffice.fonts"]]))}]
    verdicts = {v["numbers"]: v for v in found["numbers"]}
    assert set(verdicts) == {"metric connector-audit", "judge metrics"}
    assert not any(v["comparable"] for v in verdicts.values())
    assert "run B holds the render stage from several environments" in verdicts[
        "judge metrics"]["why"]
    assert refig(["compare", str(locked), str(run)]) == 0
    assert "renderer.libreoffice.fonts" in capsys.readouterr().out


def test_a_folder_of_runs_under_strict_fails_when_one_run_deviates(locked, run, capsys) -> None:
    folder = run.parent / "runs"
    shutil.copytree(locked, folder / "a")
    shutil.copytree(locked, folder / "b")
    assert refig(["report", str(folder), "-q", "--resamples", "100", "--strict"]) == 0
    assert refig(["report", str(folder), "-q", "--resamples", "100", "--seed", "3",
                  "--strict"]) == 1
    assert "stats.seed: locked 0, used 3" in capsys.readouterr().err
