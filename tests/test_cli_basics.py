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
