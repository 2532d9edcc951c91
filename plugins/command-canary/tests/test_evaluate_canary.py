"""``refig evaluate`` checks the run's family's golden canary before it adds a number: a failed
canary adds nothing and says what differs; ``--no-canary`` goes on, and the run says so; a run
evaluated in another environment gets no number unless ``--mixed-environments``, and lists
every environment it was evaluated in."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from refig.cli import run as refig
from refig.models import Inspection
from refig.store import RunStore
from refig_command_canary.checking import Verdict
from refig_command_canary.golden import GoldenSet

#: A figure-to-slide run (the migration fixture's), to evaluate.
FIXTURE = Path(__file__).parents[3] / "core" / "tests" / "fixtures" / "v1" / "refig.db.gz"


@pytest.fixture
def run(tmp_path: Path) -> Path:
    folder = tmp_path / "run"
    (folder / "objects").mkdir(parents=True)
    (folder / "refig.db").write_bytes(gzip.decompress(FIXTURE.read_bytes()))
    return folder


@pytest.fixture
def checked(monkeypatch) -> list[str]:
    """Each golden set checked, by name; every check fails as a machine without fonts does."""
    names: list[str] = []

    def check(self: GoldenSet, *, quiet: bool = False) -> Verdict:
        names.append(self.name)
        return Verdict(passed=False, differs="fonts missing: Carlito", environment="e1")

    monkeypatch.setattr(GoldenSet, "check", check)
    return names


def _meta(run: Path) -> dict:
    store = RunStore.open(run)
    try:
        return json.loads(store.get_meta("canary") or "{}")
    finally:
        store.close()


def _inspections(run: Path) -> int:
    store = RunStore.open(run)
    try:
        return store.count(Inspection)
    finally:
        store.close()


def test_a_failed_canary_adds_no_number_and_says_what_differs(run, checked, capsys):
    before = _inspections(run)
    assert refig(["evaluate", str(run), "-q"]) == 1
    err = " ".join(capsys.readouterr().err.split())  # unwrapped
    assert "golden canary failed" in err and "fonts missing: Carlito" in err
    assert "--no-canary" in err
    assert checked == ["slides"]  # the run's family's set only
    assert _inspections(run) == before
    assert _meta(run) == {"status": "failed", "environment": "e1",
                          "differs": "fonts missing: Carlito", "environments": []}


def test_no_canary_evaluates_without_checking_and_the_run_says_so(run, checked, capsys):
    refig(["evaluate", str(run), "-q", "--no-canary"])
    assert checked == []
    assert "golden canary failed" not in capsys.readouterr().err
    assert _meta(run) == {"status": "not checked (--no-canary)", "environments": []}


def _passing_in(environment: str, monkeypatch) -> None:
    """Every golden set passes, in ``environment`` (a digest): a machine set up as another."""
    monkeypatch.setattr(GoldenSet, "check", lambda self, *, quiet=False: Verdict(
        passed=True, environment=environment))


def test_a_run_evaluated_in_another_environment_gets_no_number_unless_told(
        run, monkeypatch, capsys):
    _passing_in("e1", monkeypatch)
    refig(["evaluate", str(run), "-q"])
    assert _meta(run)["environments"] == ["e1"]
    capsys.readouterr()
    _passing_in("e2", monkeypatch)  # the same run, on a machine set up otherwise
    assert refig(["evaluate", str(run), "-q"]) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert "evaluated in another environment" in err and "--mixed-environments" in err
    assert _meta(run)["environments"] == ["e1"]
    refig(["evaluate", str(run), "-q", "--mixed-environments"])
    assert "another environment" not in capsys.readouterr().err
    assert _meta(run)["environments"] == ["e1", "e2"]
    _passing_in("e1", monkeypatch)  # back on the first machine: an environment it has seen
    refig(["evaluate", str(run), "-q"])
    assert "another environment" not in capsys.readouterr().err
    assert _meta(run)["environments"] == ["e1", "e2"]


def test_a_set_whose_realiser_cannot_start_reads_no_environment_and_refuses_nothing(
        run, monkeypatch, capsys):
    _passing_in("e1", monkeypatch)
    refig(["evaluate", str(run), "-q"])
    capsys.readouterr()
    _passing_in("", monkeypatch)  # every document skipped: no environment was read
    refig(["evaluate", str(run), "-q"])
    assert "another environment" not in capsys.readouterr().err
    assert _meta(run) == {"status": "passed", "environment": "", "differs": "",
                          "environments": ["e1"]}
