"""`refig report` without the reporters it needs names the distribution to install (exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from refig.cli import run


def _said(capsys: pytest.CaptureFixture[str]) -> str:
    return " ".join(capsys.readouterr().err.split())


def test_no_reporter_installed_names_the_terminal_reporters(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("REFIG_LOAD_PLUGINS", "")  # the core alone
    assert run(["report", str(tmp_path)]) == 2
    said = _said(capsys)
    assert "no reporter is installed" in said
    assert "pip install 'refig-reporter-terminal'" in said and "Traceback" not in said


@pytest.mark.parametrize(("options", "name"), [((), "terminal"), (("--json",), "json")])
def test_a_missing_terminal_or_json_reporter_names_its_distribution(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        options: tuple[str, ...], name: str) -> None:
    monkeypatch.setenv("REFIG_DISABLE_PLUGINS", "refig-reporter-terminal")
    assert run(["report", str(tmp_path), *options]) == 2
    said = _said(capsys)
    assert f"the {name} reporter is not installed" in said
    assert "pip install 'refig-reporter-terminal'" in said
