"""What a new user types first: the version, and a run pointed at a file instead of a folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from refig import __version__
from refig.cli import run


def test_version_prints_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"refig {__version__}"


def test_run_out_a_file_is_a_usage_error_not_a_traceback(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "notes.txt"
    target.write_text("mine")
    code = run(["run", "--suite", str(tmp_path), "--harness", "cv", "--out", str(target)])
    assert code == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "is a file, not a run directory" in err and "Traceback" not in err
    assert target.read_text() == "mine"  # nothing lost


def test_a_mistyped_name_gets_the_near_match(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["evaluate", "nowhere", "--judge", "metrix"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "unknown judge 'metrix' (did you mean 'metrics'?)" in err


def test_a_mistyped_kind_gets_the_near_match(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["list-plugins", "--kind", "judg"]) == 2
    assert "(did you mean 'judge'?)" in capsys.readouterr().err


def test_help_shows_flags_without_a_bool_type(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--help"], ["run", "--help"], ["suite", "build", "sample", "--help"]):
        assert run(argv) == 0
        text = capsys.readouterr().out
        assert "--help" in text and "<bool>" not in text
    assert run(["run", "--help"]) == 0
    assert "<int range>" in capsys.readouterr().out  # options that take a value keep their type


def test_check_of_a_missing_file_says_so_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nothere.pptx"
    assert run(["check", "-q", str(missing)]) == 1
    captured = capsys.readouterr()
    said = (captured.out + captured.err).count(str(missing) + ":")
    assert said == 1, captured


def test_view_of_an_empty_folder_says_a_folder_of_runs_is_accepted(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["view", str(tmp_path)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "is not a refig run" in err and "a folder of runs" in err
