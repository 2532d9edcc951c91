"""`refig suite build figcodebench` and `code-sample` through the real command line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import ModuleType

import pytest
from refig.cli import run


def test_figcodebench_import_then_validate_and_info(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], kit: ModuleType) -> None:
    release = kit.build_release(tmp_path / "release")
    out = tmp_path / "suite"
    assert run(["suite", "build", "figcodebench", "--from", str(release), "--out", str(out),
                "-q"]) == 0
    assert run(["suite", "validate", str(out), "-q"]) == 0
    capsys.readouterr()
    assert run(["suite", "info", str(out), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["builder"] == "figcodebench" and info["all"]["count"] == 12


def test_a_folder_that_is_no_release_fails_clearly(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert run(["suite", "build", "figcodebench", "--from", str(tmp_path), "--out",
                str(tmp_path / "s"), "-q"]) == 1
    assert "no FigCodeBench language folder" in capsys.readouterr().err


def test_code_sample_for_one_language_and_category(tmp_path: Path) -> None:
    if shutil.which("Rscript") is None:
        pytest.skip("Rscript is not installed (scripts/bootstrap.sh)")
    out = tmp_path / "suite"
    assert run(["suite", "build", "code-sample", "--out", str(out), "--language", "r",
                "--category", "compositional", "-q"]) == 0
    assert run(["suite", "validate", str(out), "-q"]) == 0
    lines = (out / "tasks.jsonl").read_text().splitlines()
    assert [json.loads(line)["id"] for line in lines] == ["r-compositional-0-0"]
