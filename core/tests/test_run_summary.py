"""The summary `refig run` prints names the configuration it ran, options included."""

from __future__ import annotations

from pathlib import Path

import pytest
from refig.cli import run as refig
from refig.plugins import Registry


def test_run_summary_shows_the_configuration_id_with_its_options(
        tmp_path: Path, capsys, monkeypatch) -> None:
    """A real run, whose summary is given an id with options (``[figure=file]``, as a CLI
    harness's run has; running one needs the scripted model server, tested elsewhere)."""
    import dataclasses

    import refig.running.runner as runner

    if "raster-paste" not in Registry.load().names("harness"):
        pytest.skip("needs the baseline harnesses")
    real = runner.execute

    def with_options(*args: object, **kwargs: object) -> runner.RunSummary:
        summary = real(*args, **kwargs)
        return dataclasses.replace(summary, config_id=summary.config_id + "[figure=file]")

    monkeypatch.setattr(runner, "execute", with_options)
    monkeypatch.chdir(tmp_path)
    assert refig(["suite", "build", "sample", "--out", "s", "--n", "1", "-q"]) == 0
    capsys.readouterr()
    assert refig(["run", "--suite", "s", "--harness", "raster-paste", "--out", "run"]) == 0
    out = "".join(capsys.readouterr().out.split())  # the title may wrap at the console width
    # rich read the options suffix as a markup tag and printed `none@raster-paste/direct` alone
    assert "refigrun:none@raster-paste/direct[figure=file]" in out


def test_an_interrupted_run_says_what_was_kept_and_exits_130(
        tmp_path: Path, capsys, monkeypatch) -> None:
    """Ctrl-C inside the runner (stood in for by ``execute`` raising KeyboardInterrupt: what an
    interrupt does to attempts is tested in test_run_attempts.py) ends with a message, not
    typer's silent exit."""
    import refig.running.runner as runner

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    if "raster-paste" not in Registry.load().names("harness"):
        pytest.skip("needs the baseline harnesses")
    suite = tmp_path / "suite"
    assert refig(["suite", "build", "sample", "--out", str(suite), "--n", "1", "-q"]) == 0
    monkeypatch.setattr(runner, "execute", interrupted)
    capsys.readouterr()
    code = refig(["run", "--suite", str(suite), "--harness", "raster-paste",
                  "--out", str(tmp_path / "run"), "-q"])
    assert code == 130
    assert "run the same command again to resume" in " ".join(capsys.readouterr().err.split())
