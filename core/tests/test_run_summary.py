"""The summary `refig run` prints names the configuration it ran, options included."""

from __future__ import annotations

from pathlib import Path

import pytest
from refig.cli import run as refig
from refig.plugins import Registry


def test_run_summary_shows_the_configuration_id_with_its_options(
        tmp_path: Path, capsys, monkeypatch) -> None:
    if "oracle" not in Registry.load().names("harness"):
        pytest.skip("needs the deck-edit family plugin (its oracle takes an option)")
    monkeypatch.chdir(tmp_path)  # a short relative path: the title stays on one line
    suite, run = Path("d"), Path("run")
    assert refig(["suite", "build", "deck-sample", "--out", str(suite), "--seed", "0", "-q"]) == 0
    capsys.readouterr()
    assert refig(["run", "--suite", str(suite), "--harness", "oracle", "--out", str(run),
                  "--harness-opt", f"suite={suite}", "--limit", "1"]) == 0
    title = next(line for line in capsys.readouterr().out.splitlines() if "refig run:" in line)
    # rich read the options suffix as a markup tag and printed `none@oracle/direct` alone
    assert f"none@oracle/direct[suite={suite}]" in title


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
