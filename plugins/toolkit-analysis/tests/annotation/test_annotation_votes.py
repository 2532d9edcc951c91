"""Votes through a session into the run store; undo as a retraction; export and import as JSONL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from refig.cli import run as cli
from refig.errors import RefigError
from refig.models import Preference
from refig.store import RunStore
from refig_toolkit_analysis.annotation.candidates import load_candidates
from refig_toolkit_analysis.annotation.planner import build_plan
from refig_toolkit_analysis.annotation.session import ActionError, Session
from refig_toolkit_analysis.annotation.votes import import_votes


def _session(store: RunStore) -> Session:
    candidates = load_candidates(store)
    return Session(store, candidates, build_plan(candidates, seed=0))


def _vote_all(session: Session, annotator: str, n: int) -> list[dict]:
    shown = []
    for k in range(n):
        state = session.state(annotator)
        shown.append(state["item"])
        session.vote(annotator, state["item"]["token"], ("A", "B", "tie")[k % 3], seconds=1.5)
    return shown


def _said(capsys) -> str:
    """stderr with rich's line wrapping undone."""
    return " ".join(capsys.readouterr().err.split())


def _records(store: RunStore) -> dict[str, dict]:
    return {p.id: p.model_dump(mode="json") for p in store.iter(Preference)}


def test_votes_store_the_order_shown_and_undo_retracts(make_run, owners) -> None:
    store = make_run()
    session = _session(store)
    by_png = owners(store)
    shown = _vote_all(session, "alice", 4)
    votes = sorted(store.iter(Preference), key=lambda p: p.created_at)
    assert len(votes) == 4
    for item, vote in zip(shown, votes, strict=True):
        left = by_png[item["left"]["image"].removeprefix("/img/")]
        right = by_png[item["right"]["image"].removeprefix("/img/")]
        assert (vote.task_id, vote.left) == left and (vote.task_id, vote.right) == right
        assert vote.annotator == "alice" and vote.session == session.id and vote.seconds == 1.5
        assert vote.left_artifact and vote.right_artifact and vote.active
    state = session.undo("alice")
    assert state["undone"] and state["item"]["left"] == shown[-1]["left"]  # same pair, same order
    assert state["item"]["right"] == shown[-1]["right"]
    held = {p.id: p for p in store.iter(Preference)}
    assert not held[votes[-1].id].active and sum(p.active for p in held.values()) == 3
    assert state["progress"]["done"] == 3
    session.undo("alice")  # undo again takes back the vote before
    assert sum(p.active for p in store.iter(Preference)) == 2
    with pytest.raises(ActionError, match="nothing to undo"):
        session.undo("nobody")


def test_a_stale_or_repeated_vote_is_refused_or_stored_once(make_run) -> None:
    store = make_run()
    session = _session(store)
    token = session.state("bob")["item"]["token"]
    session.vote("bob", token, "A", vote_id="retried-vote-0001")
    # the page retried the same request: stored once, no error
    session.vote("bob", token, "A", vote_id="retried-vote-0001")
    assert store.count(Preference) == 1
    with pytest.raises(ActionError, match="no longer on your screen"):
        session.vote("bob", token, "B")
    with pytest.raises(ActionError, match="choice must be"):
        session.vote("bob", session.state("bob")["item"]["token"], "left")
    with pytest.raises(ActionError, match="annotator name"):
        session.state("bob smith")


def test_export_import_round_trip_is_idempotent(make_run, tmp_path: Path, capsys) -> None:
    origin = make_run("origin")
    session = _session(origin)
    _vote_all(session, "alice", 5)
    _vote_all(session, "bob", 3)
    session.undo("bob")
    exported = tmp_path / "votes.jsonl"
    assert cli(["annotate", "export", str(origin.root), "--out", str(exported)]) == 0
    assert "exported 8 votes" in _said(capsys)
    nowhere = tmp_path / "no-such-dir" / "votes.jsonl"
    assert cli(["annotate", "export", str(origin.root), "--out", str(nowhere)]) == 1
    said = _said(capsys)
    assert "cannot write the votes: No such file or directory" in said and "no-such-dir" in said
    lines = exported.read_text().splitlines()
    assert len(lines) == 8 and sum(json.loads(x)["retracted_at"] is not None for x in lines) == 1

    copy = make_run("copy")  # the same run on another machine (same seed: same records)
    assert cli(["annotate", "import", str(copy.root), str(exported)]) == 0
    assert "8 new votes, 0 retractions, 0 already in the run" in _said(capsys)
    assert _records(copy) == _records(origin)
    assert cli(["annotate", "import", str(copy.root), str(exported)]) == 0
    assert "0 new votes, 0 retractions, 8 already in the run" in _said(capsys)
    assert _records(copy) == _records(origin)

    # an undo on the origin travels; an older file never brings a retracted vote back
    session.undo("alice")
    later = tmp_path / "later.jsonl"
    assert cli(["annotate", "export", str(origin.root), "-o", str(later)]) == 0
    assert import_votes(copy, later).retracted == 1
    assert import_votes(copy, exported).unchanged == 8
    assert _records(copy) == _records(origin)
    assert sum(p.active for p in copy.iter(Preference)) == 6


def test_import_names_the_bad_line_and_imports_nothing(make_run, tmp_path: Path, capsys) -> None:
    origin = make_run("origin")
    _vote_all(_session(origin), "alice", 2)
    good = [p.model_dump_json() for p in origin.iter(Preference)]
    copy = make_run("copy")
    cases = {
        "truncated": [good[0], good[1][:40]],
        "unknown task": [good[0], good[1].replace('"task_id":"task-', '"task_id":"other-')],
        "bad choice": [
            good[0],
            good[1].replace('"choice":"', '"choice":"C').replace('"C', '"X', 1),
        ],
    }
    for name, lines in cases.items():
        path = tmp_path / f"{name}.jsonl"
        path.write_text("\n".join(lines) + "\n")
        assert cli(["annotate", "import", str(copy.root), str(path)]) == 1, name
        message = _said(capsys)
        assert f"line 2 of {path}" in message, (name, message)
        assert copy.count(Preference) == 0, name
    first = json.loads(good[0])
    conflicting = tmp_path / "conflict.jsonl"
    conflicting.write_text(good[0] + "\n" + json.dumps({**first, "choice": "tie"}) + "\n")
    with pytest.raises(RefigError, match=r"line 2 .* reuses vote id"):
        import_votes(copy, conflicting)
    (tmp_path / "one.jsonl").write_text(good[0] + "\n\n")
    import_votes(copy, tmp_path / "one.jsonl")
    changed = tmp_path / "changed.jsonl"
    changed.write_text(json.dumps({**first, "annotator": "mallory"}) + "\n")
    with pytest.raises(RefigError, match="stored in this run with other content"):
        import_votes(copy, changed)
