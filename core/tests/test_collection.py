"""Finding the runs of a folder (what ``refig view DIR`` and ``refig report DIR --html`` read as
one collection), and what ``refig report`` does with a folder of runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from refig.cli import run as cli
from refig.collection import collection_runs, find_runs, run_name
from refig.errors import UsageError
from refig.store import RunStore


def _runs(root: Path, *names: str) -> list[Path]:
    return [RunStore.create(root / name).root for name in names]


def test_runs_are_found_below_the_folder_in_name_order(tmp_path: Path) -> None:
    found = _runs(tmp_path, "run", "figure-to-code/run", "deck-edit/run", "a/b/c/run")
    assert find_runs(tmp_path) == sorted(found, key=lambda p: p.relative_to(tmp_path).as_posix())
    assert [run_name(tmp_path, p) for p in find_runs(tmp_path)] == [
        "a/b/c/run", "deck-edit/run", "figure-to-code/run", "run"]


def test_not_inside_a_run_nor_hidden_nor_through_links_nor_too_deep(tmp_path: Path) -> None:
    (outer,) = _runs(tmp_path, "outer")
    _runs(tmp_path, "outer/nested", ".hidden/run", "1/2/3/4/5/run")
    (tmp_path / "link").symlink_to(outer, target_is_directory=True)
    assert find_runs(tmp_path) == [outer]


def test_a_run_or_an_empty_folder_is_not_a_collection(tmp_path: Path) -> None:
    (run,) = _runs(tmp_path, "run")
    assert collection_runs(run) is None
    assert collection_runs(tmp_path / "nothing") is None
    (tmp_path / "empty").mkdir()
    assert collection_runs(tmp_path / "empty") is None
    assert collection_runs(tmp_path) == [run]


def test_a_huge_tree_is_refused_not_walked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import refig.collection

    monkeypatch.setattr(refig.collection, "MAX_DIRECTORIES", 5)
    for n in range(6):
        (tmp_path / f"d{n}").mkdir()
    with pytest.raises(UsageError, match="more than 5 folders"):
        find_runs(tmp_path)


def test_report_of_an_empty_folder_still_says_it_is_no_run(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty").mkdir()
    assert cli(["report", str(tmp_path / "empty"), "-q"]) == 2
    assert "is not a refig run" in " ".join(capsys.readouterr().err.split())


def test_tables_of_one_run_are_refused_for_a_folder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _runs(tmp_path, "a/run", "b/run")
    assert cli(["report", str(tmp_path), "--json"]) == 2
    assert "folder of 2 runs" in " ".join(capsys.readouterr().err.split())
