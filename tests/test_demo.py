"""`refig demo` runs the whole pipeline offline and the flattening cap catches the paste.

The demo is the session's shared one (``demo_run`` in the root conftest, also viewed by
reporter-html's tests); CI's first step has run the full demo from the README already.
"""

from __future__ import annotations

import json
import shutil

import pytest
from refig.cli import run
from refig.demo import verdicts
from refig.store import RunStore


@pytest.mark.slow
def test_demo_ends_with_a_report_in_which_the_paste_is_capped(demo_run, tmp_path, capsys):
    printed = demo_run.printed
    assert "caught by the flattening cap and below cv on editability: yes" in printed
    found = {v.config_id: v for v in verdicts(RunStore.open(demo_run.folder / "run"))}
    paste, native = found["none@raster-paste/direct"], found["none@cv/direct"]
    # a deterministic judge is scored once
    assert paste.judged == native.judged == demo_run.tasks
    assert "a proxy: it sees pixel similarity above an empty slide's" in " ".join(printed.split())
    assert paste.capped == paste.judged and native.capped == 0
    assert paste.editability == 0 and native.editability > 15
    assert paste.total <= 25 < native.total
    index = demo_run.folder / "report" / "index.html"
    assert index.is_file() and "raster-paste" in index.read_text()

    # a second demo resumes: nothing is run, rendered or judged again (on a copy: the session's
    # demo is shared)
    out = tmp_path / "demo"
    shutil.copytree(demo_run.folder, out)
    store = RunStore.open(out / "run")
    before = {table: store.count(model) for table, model in _tables()}
    assert run(["demo", "--out", str(out), "--tasks", str(demo_run.tasks), "-q"]) == 0
    assert {table: store.count(model) for table, model in _tables()} == before
    capsys.readouterr()
    assert run(["report", str(out / "run"), "--json", "-q"]) == 0
    tables = json.loads(capsys.readouterr().out)["tables"]
    assert {"means", "structural", "effects", "repeatability"} <= tables.keys()
    # the repeatability of a deterministic judge is not a finding
    assert tables["repeatability"]["not_applicable"] == "deterministic judge (metrics)"
    assert tables["repeatability"]["rows"] == []
    assert any("proxy judge" in note for note in tables["means"]["notes"])


def _tables():
    from refig.models import Attempt, Judgment, MetricValue, Render

    return [("attempts", Attempt), ("renders", Render), ("metrics", MetricValue),
            ("judgments", Judgment)]


def test_verdicts_count_attempts_not_distinct_artifacts(tmp_path):
    """Two tasks whose attempts left byte-identical outputs share one artifact (and one
    judgment): the verdict still counts two judged, two capped attempts."""
    from refig.models import (
        Asset,
        Attempt,
        AttemptStatus,
        Configuration,
        GateResult,
        Inspection,
        Judgment,
        JudgmentStatus,
        Task,
    )

    store = RunStore.create(tmp_path / "run")
    figure = store.objects.put_bytes(b"figure")
    slide = store.objects.put_bytes(b"the same slide for both tasks")
    config = Configuration(model="none", harness="paste", workflow="direct")
    records = [config]
    for n in range(2):
        records += [
            Task(id=f"t{n}", family="figure-to-slide",
                 inputs={"figure": Asset(path=f"{n}.png", sha256=figure)}),
            Attempt(task_id=f"t{n}", config_id=config.id, status=AttemptStatus.SUCCEEDED,
                    outputs={"slide": slide}),
        ]
    records += [
        Inspection(artifact_sha256=slide, inspector="test", gate=GateResult(passed=True)),
        Judgment(artifact_sha256=slide, judge="metrics", judge_key="k", rubric_sha256="r",
                 rubric_version="1", repeat=0, status=JudgmentStatus.OK, total=10.0,
                 capped=True),
    ]
    store.put_many(records)
    (found,) = verdicts(store)
    assert (found.judged, found.capped) == (2, 2)


def test_the_verdict_table_prints_configuration_options_as_text(tmp_path, capsys):
    """A configuration id's ``[key=value]`` options are printed, not read as rich markup."""
    from refig.commands.demo import _verdict
    from refig.demo import ConfigVerdict, DemoOutcome
    from refig_family_deck_edit.demo import DEMO as deck

    outcome = DemoOutcome(
        demo=deck, suite=tmp_path / "suite", run=tmp_path / "run", html=tmp_path / "report",
        verdicts=(ConfigVerdict("none@oracle/direct[suite=demo/deck-edit/suite]", 5.0,
                                float("nan"), 0, 2),
                  ConfigVerdict("none@identity/direct", 1.0, float("nan"), 0, 2)),
        total_max=10)
    assert _verdict(outcome)
    assert "none@oracle/direct[suite=demo/deck-edit/suite]" in "".join(
        capsys.readouterr().out.split())


def _figure_demo():
    from refig.plugins import Registry

    return Registry.load(warn=lambda _: None).family("figure-to-slide").record.demo


def test_the_demo_refuses_a_family_whose_baselines_are_unavailable(capsys):
    """A family installed without what its demo runs fails loudly instead of being skipped."""
    from refig.demo import check_installed
    from refig.errors import RefigError
    from refig.plugins import Registry

    registry = Registry.load(environ={"REFIG_DISABLE_PLUGINS": "refig-harness-baseline"},
                             warn=lambda _: None)
    if "figure-to-slide" not in registry.names("family"):
        pytest.skip("the figure-to-slide family is not installed")
    with pytest.raises(RefigError, match="figure-to-slide demo cannot run: harness cv, "
                       "harness raster-paste not available"):
        check_installed(registry, _figure_demo())


def test_the_demo_runs_the_installed_families_demos_the_one_writing_to_out_first():
    from refig.demo import demos
    from refig.plugins import Registry

    registry = Registry.load(environ={"REFIG_DISABLE_PLUGINS": "refig-family-figure-to-code"},
                             warn=lambda _: None)
    found = [(demo.family, demo.folder) for demo in demos(registry)]
    assert found[0] == ("figure-to-slide", "") and ("figure-to-code", "figure-to-code") not in found


def test_refig_demo_exits_non_zero_before_any_work_when_a_family_is_broken(
        tmp_path, monkeypatch, capsys):
    from refig.plugins import Registry

    if "figure-to-slide" not in Registry.load(warn=lambda _: None).names("family"):
        pytest.skip("the figure-to-slide family is not installed")
    monkeypatch.setenv("REFIG_DISABLE_PLUGINS", "refig-harness-baseline")
    assert run(["demo", "--out", str(tmp_path / "demo"), "-q"]) == 1
    assert "figure-to-slide demo cannot run" in " ".join(capsys.readouterr().err.split())
    assert not (tmp_path / "demo" / "suite").exists()
