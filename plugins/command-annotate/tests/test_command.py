"""`refig annotate` comes from the plugin through `refig_commands`, with its subcommands and
options; serving, votes and ratings are tested with the pages, in the analysis toolkit's tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from refig.cli import run
from refig.store import RunStore


def test_the_plugin_registers_refig_annotate(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["list-plugins", "--json"]) == 0
    listed = {p["name"]: p for p in json.loads(capsys.readouterr().out)}
    plugin = listed["refig-command-annotate"]
    assert (plugin["status"], plugin["hooks"]) == ("active", ["refig_commands"])
    assert run(["annotate", "--help"]) == 0
    said = capsys.readouterr().out
    assert all(name in said for name in ("serve", "export", "import"))
    assert run(["annotate", "serve", "--help"]) == 0
    said = capsys.readouterr().out
    assert all(option in said for option in ("--port", "--host", "--annotator", "--seed",
                                             "--replication", "--rate", "--audit-verdicts"))


def test_export_and_import_of_a_run_without_votes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = RunStore.create(tmp_path / "run")
    votes = tmp_path / "votes.jsonl"
    assert run(["annotate", "export", str(store.root), "--out", str(votes)]) == 0
    assert votes.read_text() == ""
    assert f"exported 0 votes to {votes}" in _said(capsys)
    assert run(["annotate", "import", str(store.root), str(votes)]) == 0
    assert "0 new votes, 0 retractions, 0 already in the run" in _said(capsys)


def _said(capsys: pytest.CaptureFixture[str]) -> str:
    return " ".join(capsys.readouterr().err.split())


def test_without_the_plugin_there_is_no_annotate_command(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("REFIG_DISABLE_PLUGINS", "refig-command-annotate")
    assert run(["annotate", "--help"]) == 2
    assert "No such command 'annotate'" in _said(capsys)
