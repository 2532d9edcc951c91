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


def _judged(root: Path, name: str, judges: tuple[str, ...]) -> Path:
    from refig.models import Configuration
    from refig_toolkit_testing.synthetic import SyntheticSpec, synthetic_run

    spec = SyntheticSpec(configs=[Configuration(model="m", harness="h", workflow="direct")],
                         quality=[[0.5] * 5], tasks=3, judges=judges, repeats=1, votes=0,
                         images=False, gate_failures=0.0, failed_judgments=0.0)
    return synthetic_run(root / name, spec).root


def test_a_judge_that_judged_some_runs_is_used_there_and_the_others_say_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from refig.collection import judges_of, runs_without

    both = _judged(tmp_path, "a/run", ("judge-a", "judge-b"))
    other = _judged(tmp_path, "b/run", ("judge-b",))
    assert judges_of(both) == {"judge-a", "judge-b"} and judges_of(other) == {"judge-b"}
    assert runs_without(tmp_path, [both, other], "judge-a") == [other]
    assert cli(["report", str(tmp_path), "--judge", "judge-a", "--resamples", "100"]) == 0
    output = capsys.readouterr()
    notices = " ".join(output.err.split())
    assert "b/run: judge 'judge-a' did not judge this run, so its tables use the run's own main " \
           "judge" in notices
    assert "a/run: judge" not in notices
    tables = " ".join(output.out.split())
    assert "(judge judge-a)" in tables and "(judge judge-b)" in tables


def test_a_judge_that_judged_none_of_the_runs_exits_2_naming_theirs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _judged(tmp_path, "a/run", ("judge-a",))
    _judged(tmp_path, "b/run", ("judge-b",))
    assert cli(["report", str(tmp_path), "--judge", "judge-x", "-q"]) == 2
    message = " ".join(capsys.readouterr().err.split())
    assert "judge 'judge-x' judged none of the 2 runs" in message
    assert "a/run: judge-a" in message and "b/run: judge-b" in message
