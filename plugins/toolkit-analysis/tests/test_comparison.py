"""`refig compare`'s logic on two hand-made stores: what differs, and which numbers compare."""

from __future__ import annotations

from pathlib import Path

from refig.provenance import record_environment
from refig.store import RunStore
from refig_toolkit_analysis.comparison import compare_runs

RENDER = {"renderer.r.version": "7.4", "renderer.r.fonts": "53"}
MEASURE = {"metric.image.version": "3", "metric.text.version": "8", "metric.text.ocr": "a"}
JUDGE = {"judge.gpt-5.4.key": "k1", "judge.gpt-5.4.model": "m", "judge.gpt-5.key": "k2",
         "rubric.sha256": "r"}


def _run(root: Path, **changes: dict[str, str]) -> RunStore:
    store = RunStore.create(root)
    for stage, entries in (("suite", {"suite": "s"}), ("render", RENDER), ("measure", MEASURE),
                           ("judge", JUDGE)):
        record_environment(store, stage, {**entries, **changes.get(stage, {})})
    return store


def test_equal_environments_compare_everything(tmp_path: Path) -> None:
    found = compare_runs(_run(tmp_path / "a"), _run(tmp_path / "b"))
    assert found.differences == []
    assert {v.numbers: v.comparable for v in found.verdicts} == {
        "metric image": True, "metric text": True, "judge gpt-5": True, "judge gpt-5.4": True}


def test_a_changed_entry_blocks_only_the_numbers_made_from_it(tmp_path: Path) -> None:
    found = compare_runs(_run(tmp_path / "a"),
                         _run(tmp_path / "b", measure={"metric.text.ocr": "b"},
                              judge={"judge.gpt-5.4.model": "other"}))
    assert [(d.entry, d.a, d.b) for d in found.differences] == [
        ("judge.gpt-5.4.model", "m", "other"), ("metric.text.ocr", "a", "b")]
    verdicts = {v.numbers: v for v in found.verdicts}
    assert verdicts["metric image"].comparable and verdicts["judge gpt-5"].comparable
    assert verdicts["metric text"].why == "metric.text.ocr differs"
    assert verdicts["judge gpt-5.4"].why == "judge.gpt-5.4.model differs"


def test_another_rendering_or_suite_blocks_every_number(tmp_path: Path) -> None:
    found = compare_runs(_run(tmp_path / "a"),
                         _run(tmp_path / "b", render={"renderer.r.fonts": "0"},
                              suite={"suite": "t"}))
    assert not any(v.comparable for v in found.verdicts)
    assert found.verdicts[0].why == "suite differs; renderer.r.fonts differs"


def test_a_run_evaluated_in_two_environments_mixes_them(tmp_path: Path) -> None:
    mixed = _run(tmp_path / "b")
    record_environment(mixed, "measure", {**MEASURE, "metric.image.version": "4"})
    found = compare_runs(_run(tmp_path / "a"), mixed)
    verdicts = {v.numbers: v for v in found.verdicts}
    assert not verdicts["metric image"].comparable and verdicts["metric text"].comparable
    assert verdicts["metric image"].why.startswith("run B holds the measure stage from several")
    assert [(d.entry, d.b) for d in found.differences] == [("metric.image.version", "3 | 4")]
