"""`refig suite validate` and `refig suite info` on real suite directories."""

from __future__ import annotations

import json

import pytest
from refig.cli import run
from refig.suite import SuiteWriter, check_suite
from refig_toolkit_testing.suites import png, tiny_suite


@pytest.fixture
def suite_dir(tmp_path):
    return tiny_suite(tmp_path / "s")


def test_created_at_is_fixed_by_the_writer(suite_dir):
    assert json.loads((suite_dir / "suite.json").read_text())["created_at"].startswith("2020-01-01")


def test_a_good_suite_validates(suite_dir, capsys):
    check = check_suite(suite_dir)
    assert check.ok and (check.tasks, check.images, check.files) == (3, 3, 4)
    assert run(["suite", "validate", str(suite_dir), "-q"]) == 0
    assert "valid" in capsys.readouterr().out


def test_a_tampered_asset_fails_and_is_named(suite_dir, capsys):
    (suite_dir / "assets" / "b.png").write_bytes(png(200, 100, "#FF0000"))
    assert run(["suite", "validate", str(suite_dir), "-q"]) == 1
    output = capsys.readouterr().out
    assert "assets/b.png" in output and "sha256" in output


def test_json_report_lists_every_problem(suite_dir, capsys):
    (suite_dir / "assets" / "a.png").write_bytes(b"not an image")
    (suite_dir / "annotations" / "a.json").write_text("[]")
    (suite_dir / "assets" / "stray.png").write_bytes(png(10, 10))
    lines = (suite_dir / "tasks.jsonl").read_text().splitlines()
    escaped = json.loads(lines[1])
    escaped["inputs"]["figure"]["path"] = "../outside.png"
    duplicate = json.loads(lines[2]) | {"id": "a"}
    (suite_dir / "tasks.jsonl").write_text("\n".join([lines[0], json.dumps(escaped),
                                                      json.dumps(duplicate), "{bad"]) + "\n")
    assert run(["suite", "validate", str(suite_dir), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    messages = " | ".join(f"{p['where']}: {p['message']}" for p in report["problems"])
    for expected in ("has sha256", "cannot", "leaves the suite", "duplicate task id",
                     "tasks.jsonl:4", "no task refers", "not a JSON object"):
        assert expected in messages, expected
    assert not report["ok"]


def test_oversized_image_is_refused(tmp_path):
    writer = SuiteWriter(tmp_path, name="big", family="figure-to-slide", builder="test")
    writer.add("big", "big.png", png(500, 500))
    writer.finish()
    check = check_suite(tmp_path, max_pixels=1000)
    assert not check.ok and "over the limit" in check.errors[0].message


def test_missing_manifest_is_reported(tmp_path, capsys):
    assert run(["suite", "validate", str(tmp_path), "-q"]) == 1
    assert "suite.json" in capsys.readouterr().out


def test_info_of_what_is_no_suite_is_a_usage_error_saying_what_it_is(tmp_path, capsys):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "refig.db").write_bytes(b"")
    (tmp_path / "file.png").write_bytes(png(10, 10))
    for path, why in ((tmp_path / "nowhere", "it does not exist"),
                      (tmp_path / "file.png", "it is a file"),
                      (run_dir, "it is a run: give the suite the run was made from"),
                      (tmp_path, "no suite.json")):
        assert run(["suite", "info", str(path)]) == 2, path
        assert f"is not a suite ({why})" in " ".join(capsys.readouterr().err.split())


@pytest.mark.parametrize(("manifest", "says"), [
    (b"{not json\n", "invalid suite.json: Invalid JSON: key must be a string at line 1 column 2"),
    (b'{"name": "x"}', "invalid suite.json: version: Field required; family: Field required; "
                      "builder: Field required"),
])
def test_a_broken_manifest_names_each_problem_without_pydantics_dump(suite_dir, capsys,
                                                                     manifest, says):
    (suite_dir / "suite.json").write_bytes(manifest)
    assert run(["suite", "info", str(suite_dir)]) == 1
    said = " ".join(capsys.readouterr().err.split())
    assert says in said, said
    assert "errors.pydantic.dev" not in said and "input_value" not in said
    assert f"fix: `refig suite validate {suite_dir}` lists every problem" in said


def test_a_broken_task_line_names_the_field(suite_dir, capsys):
    lines = (suite_dir / "tasks.jsonl").read_text().splitlines()
    (suite_dir / "tasks.jsonl").write_text("\n".join([lines[0].replace('"id"', '"name"'),
                                                     *lines[1:]]) + "\n")
    assert run(["suite", "info", str(suite_dir)]) == 1
    said = " ".join(capsys.readouterr().err.split())
    assert ("invalid task on line 1: id: Field required; "
            "name: Extra inputs are not permitted") in said
    assert "errors.pydantic.dev" not in said
