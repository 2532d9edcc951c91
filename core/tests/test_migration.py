"""Runs and suites written by refig before task families (schema 1) are migrated in place.

The fixture is a real run: ``refig demo -n 2`` made by the code at commit 67b5aef (the last
schema-1 version), its ``refig.db`` checkpointed and gzipped, and that demo's suite files. The
expected tables are what that version's ``refig report --json`` printed for it.
"""

from __future__ import annotations

import gzip
import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from refig.cli import run as refig
from refig.errors import RefigError
from refig.migration import MigrationError, task_v1
from refig.models import SCHEMA_VERSION, Inspection, Render, Task
from refig.store import TABLES, RunStore
from refig.suite import Suite
from refig_toolkit_pptx import ObjectTree

FIXTURE = Path(__file__).parent / "fixtures" / "v1"

#: `refig report --json` of the fixture run, as the schema-1 code printed it.
V1_MEANS = {"none@cv/direct": 93.5, "none@raster-paste/direct": 25.0}
V1_STRUCTURAL = [
    {"config": "none@cv/direct", "artifacts": 2, "no_connector": 0.0, "median_connectors": 7.0,
     "flattened": 0.0, "semantic_under_half": 0.0},
    {"config": "none@raster-paste/direct", "artifacts": 2, "no_connector": 1.0,
     "median_connectors": 0.0, "flattened": 1.0, "semantic_under_half": 1.0},
]


@pytest.fixture
def v1_run(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    (run / "objects").mkdir(parents=True)
    (run / "refig.db").write_bytes(gzip.decompress((FIXTURE / "refig.db.gz").read_bytes()))
    return run


def _meta(run: Path, key: str) -> str | None:
    with sqlite3.connect(run / "refig.db") as db:
        row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else row[0]


def _rows(run: Path) -> list[tuple[str, ...]]:
    with sqlite3.connect(run / "refig.db") as db:
        return [row for table in ("tasks", "renders", "inspections")
                for row in db.execute(f"SELECT data FROM {table}")]


def test_a_v1_run_is_migrated_in_place_and_every_row_reads(v1_run: Path) -> None:
    assert _meta(v1_run, "schema_version") == "1"
    store = RunStore.open(v1_run)
    assert _meta(v1_run, "schema_version") == str(SCHEMA_VERSION)
    assert _meta(v1_run, "migrated_from") == "1"
    for table in TABLES.values():
        list(store.iter(table.model))  # every row validates against the version 2 models
    tasks = list(store.iter(Task))
    assert len(tasks) == 2
    for task in tasks:
        assert task.family == "figure-to-slide"
        assert task.input("figure").visible and task.input("figure").path.startswith("assets/")
        assert not task.input("annotation").visible
    renders = list(store.iter(Render))
    assert renders and all(len(r.pages) == 1 and r.pages[0].width_px == 1600 for r in renders)
    inspections = list(store.iter(Inspection))
    assert all(isinstance(i.parsed(ObjectTree), ObjectTree) for i in inspections if i.gate.passed)
    assert store.suite().family == "figure-to-slide"
    store.close()
    RunStore.open(v1_run).close()  # opening again changes nothing
    assert _meta(v1_run, "schema_version") == str(SCHEMA_VERSION)


def test_the_migrated_run_reports_what_version_1_reported(v1_run: Path, capsys) -> None:
    assert refig(["report", str(v1_run), "--json"]) == 0
    tables = json.loads(capsys.readouterr().out)["tables"]
    means = {row["config"]: row["total"]["estimate"] for row in tables["means"]["rows"]}
    assert means == V1_MEANS
    assert tables["structural"]["rows"] == V1_STRUCTURAL


def test_an_unknown_schema_is_refused_in_one_line_naming_the_file(v1_run: Path) -> None:
    with sqlite3.connect(v1_run / "refig.db") as db:
        db.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    before = _rows(v1_run)
    with pytest.raises(RefigError) as caught:
        RunStore.open(v1_run)
    assert "schema version 99" in caught.value.message
    assert caught.value.path == v1_run / "refig.db" and caught.value.fix
    assert "\n" not in caught.value.message
    assert _rows(v1_run) == before and _meta(v1_run, "schema_version") == "99"  # untouched


def test_a_v1_run_of_a_family_not_installed_is_refused_naming_it(v1_run: Path) -> None:
    with sqlite3.connect(v1_run / "refig.db") as db:
        db.execute("UPDATE tasks SET data = json_set(data, '$.kind', 'figure-to-web')")
    before = _rows(v1_run)
    with pytest.raises(MigrationError) as caught:
        RunStore.open(v1_run)
    assert "figure-to-web family" in caught.value.message
    assert caught.value.fix and "refig-family-figure-to-web" in caught.value.fix
    assert _rows(v1_run) == before and _meta(v1_run, "schema_version") == "1"  # rolled back


def test_a_v1_task_takes_its_source_role_from_its_family() -> None:
    row = {"id": "t1", "kind": "deck-edit", "source": "assets/t1.pptx", "source_sha256": "0" * 64}
    assert task_v1(row)["inputs"] == {"deck": {"path": "assets/t1.pptx", "sha256": "0" * 64,
                                               "visible": True}}


def test_a_v1_suite_is_migrated_in_place(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    for name in ("suite.json", "tasks.jsonl"):
        shutil.copy(FIXTURE / name, suite / name)
    loaded = Suite.load(suite)
    assert loaded.manifest.family == "figure-to-slide"
    assert json.loads((suite / "suite.json").read_text())["schema_version"] == SCHEMA_VERSION
    first = loaded.tasks[0]
    assert set(first.inputs) == {"figure", "annotation"}
    assert first.input("figure").sha256 == json.loads(
        (FIXTURE / "tasks.jsonl").read_text().splitlines()[0])["source_sha256"]
    assert Suite.load(suite) == loaded  # a second load reads version 2 as it is


def test_a_suite_of_an_unknown_schema_is_refused(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    manifest = json.loads((FIXTURE / "suite.json").read_text()) | {"schema_version": 7}
    (suite / "suite.json").write_text(json.dumps(manifest))
    shutil.copy(FIXTURE / "tasks.jsonl", suite / "tasks.jsonl")
    with pytest.raises(RefigError, match="schema version 7"):
        Suite.load(suite)
