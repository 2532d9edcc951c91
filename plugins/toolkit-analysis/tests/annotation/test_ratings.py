"""Ratings through a session into the run store: the balanced plan, the rubric's scale, undo as a
retraction, several annotators, export and import as JSONL (`refig annotate export --ratings`)."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from refig.cli import run as cli
from refig.errors import RefigError
from refig.models import Configuration, Rating
from refig.rubric import load_rubric
from refig.store import RunStore
from refig_toolkit_analysis.annotation.rating_items import load_rating_items
from refig_toolkit_analysis.annotation.rating_session import RatingSession
from refig_toolkit_analysis.annotation.ratings import import_ratings
from refig_toolkit_analysis.annotation.session import ActionError


def _session(store: RunStore, **kw) -> RatingSession:
    return RatingSession(store, load_rating_items(store), **kw)


def _scores(item: dict, k: int) -> dict[str, int]:
    return {a["id"]: (k + n) % (a["max"] + 1) for n, a in enumerate(item["axes"])}


def test_the_page_rates_the_family_rubric_blind_and_balanced(make_run) -> None:
    store = make_run(gate_failures=0.0)
    session = _session(store, seed=2)
    rubric = load_rubric(family="figure-to-slide")
    state = session.state("alice")
    item = state["item"]
    assert [(a["id"], a["max"]) for a in item["axes"]] == [(a.id, int(a.max)) for a in rubric.axes]
    # the judges' images (source figure, the slide) by hash; never a configuration name
    assert [i["label"] for i in item["views"][0]["images"]] and all(
        i["src"].startswith("/img/") for i in item["views"][0]["images"])
    text = json.dumps(state)
    assert not [c.id for c in store.iter(Configuration) if c.id in text]
    # any prefix of the plan rates every configuration equally often, within one
    for n in range(1, len(session.plan) + 1):
        counts = Counter(i.config_id for i in session.plan[:n])
        assert max(counts.values()) - min(counts.values()) <= 1 or len(counts) < 4
    assert len({i.key for i in session.plan}) == len(session.plan) == 32
    assert [i.key for i in _session(store, seed=2).plan] == [i.key for i in session.plan]


def test_scores_are_checked_against_the_scale(make_run) -> None:
    store = make_run(gate_failures=0.0)
    session = _session(store)
    item = session.state("alice")["item"]
    good = _scores(item, 0)
    axis = item["axes"][0]
    for bad, why in (({**good, axis["id"]: axis["max"] + 1}, "whole number 0 to"),
                     ({**good, axis["id"]: 1.5}, "whole number"),
                     ({**good, axis["id"]: True}, "whole number"),
                     ({k: v for k, v in good.items() if k != axis["id"]}, "rate exactly the axes"),
                     ("12", "object")):
        with pytest.raises(ActionError, match=why) as raised:
            session.rate("alice", item["token"], bad)
        assert raised.value.status == 400
    with pytest.raises(ActionError, match="no longer on your screen"):
        session.rate("alice", "stale-token", good)
    assert list(store.iter(Rating)) == []


def test_ratings_undo_and_two_annotators(make_run) -> None:
    store = make_run(gate_failures=0.0)
    session = _session(store)
    entered = []
    for k in range(3):
        item = session.state("alice")["item"]
        entered.append((item["task"], _scores(item, k)))
        session.rate("alice", item["token"], _scores(item, k), seconds=2.0)
    state = session.undo("alice")
    assert state["undone"] and state["previous"] == entered[-1][1]
    assert state["item"]["task"] == entered[-1][0]
    session.rate("alice", state["item"]["token"], _scores(state["item"], 7))
    entered[-1] = (entered[-1][0], _scores(state["item"], 7))
    held = sorted(store.iter(Rating), key=lambda r: r.created_at)
    active = [r for r in held if r.active]
    assert [(r.task_id, r.scores) for r in active] == entered
    assert len(held) == 4 and sum(not r.active for r in held) == 1
    # bob follows alice's trail (replication 2): the same items, first
    first = session.state("bob")["item"]
    assert (first["task"], session._current["bob"][1].config_id) == \
        (active[0].task_id, active[0].config_id)


def test_export_import_round_trip_and_a_wrong_scale_is_refused(make_run, tmp_path, capsys) -> None:
    store = make_run(gate_failures=0.0)
    session = _session(store)
    for k in range(2):
        item = session.state("alice")["item"]
        session.rate("alice", item["token"], _scores(item, k))
    session.undo("alice")
    out = tmp_path / "ratings.jsonl"
    assert cli(["annotate", "export", str(store.root), "--ratings", "--out", str(out)]) == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == 2 and sum(line["retracted_at"] is not None for line in lines) == 1
    other = make_run("other", gate_failures=0.0)
    assert cli(["annotate", "import", str(other.root), str(out), "--ratings"]) == 0
    assert cli(["annotate", "import", str(other.root), str(out), "--ratings"]) == 0
    said = " ".join(capsys.readouterr().err.split())
    assert "2 new ratings" in said and "0 new ratings, 0 retractions, 2 already" in said
    assert {r.id: r for r in other.iter(Rating)} == {r.id: r for r in store.iter(Rating)}
    wrong = tmp_path / "wrong.jsonl"
    axis = lines[0]["scores"]
    first = next(iter(axis))
    wrong.write_text(json.dumps({**lines[0], "id": "f" * 32, "scores": {**axis, first: 99}})
                     + "\n")
    with pytest.raises(RefigError, match=f"line 1 .* gives {first} 99, outside"):
        import_ratings(other, wrong)
    wrong.write_text(json.dumps({**lines[0], "id": "e" * 32, "rubric": "pptarena@1"}) + "\n")
    with pytest.raises(RefigError, match="rated on rubric 'pptarena@1'"):
        import_ratings(other, wrong)
    assert len(list(other.iter(Rating))) == 2  # nothing written by a refused import


def test_the_server_in_rating_mode(make_run) -> None:
    """`/static/page.js` is the rating script; ratings go to /api/rate, votes are not taken."""
    import http.client

    from refig_toolkit_analysis.annotation.server import AnnotationServer

    store = make_run(gate_failures=0.0)
    server = AnnotationServer(_session(store), "127.0.0.1", 0).start()

    def call(method: str, path: str, body: object = None) -> tuple[int, bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        data = None if body is None else json.dumps(body).encode()
        conn.request(method, path, body=data,
                     headers={"Content-Type": "application/json"} if data else {})
        answer = conn.getresponse()
        payload = answer.read()
        conn.close()
        return answer.status, payload

    try:
        status, script = call("GET", "/static/page.js")
        assert status == 200 and b"/api/rate" in script and b"/api/vote" not in script
        status, body = call("GET", "/api/state?annotator=alice")
        item = json.loads(body)["item"]
        image = item["views"][0]["images"][0]["src"]
        assert call("GET", image)[0] == 200 and call("GET", "/img/" + "0" * 64)[0] == 404
        vote = {"annotator": "alice", "token": item["token"], "choice": "A"}
        assert call("POST", "/api/vote", vote)[0] == 404
        bad = {"annotator": "alice", "token": item["token"], "scores": {"nope": 1}}
        assert call("POST", "/api/rate", bad)[0] == 400
        good = {"annotator": "alice", "token": item["token"], "scores": _scores(item, 1),
                "id": "a" * 32, "seconds": 3}
        status, body = call("POST", "/api/rate", good)
        assert status == 200 and json.loads(body)["progress"]["done"] == 1
        assert call("POST", "/api/rate", good)[0] == 200  # a retried request stores once
        [rating] = store.iter(Rating)
        assert rating.id == "a" * 32 and rating.scores == _scores(item, 1) and rating.seconds == 3
    finally:
        server.stop()


def test_the_rating_tables_for_any_family_with_a_rubric(make_run) -> None:
    """figure-to-slide has no rating section of its own: the core builders still give Pearson
    (against scipy, with an interval over 6 source clusters) and alpha."""
    import numpy as np
    from refig_toolkit_analysis import expert_agreement_table, judge_human_table, raters_table
    from refig_toolkit_analysis.analysis import Context, RunData
    from scipy.stats import pearsonr

    store = make_run(tasks=12, gate_failures=0.0)
    session = _session(store)
    for who, shift in (("alice", 0), ("bob", 1)):
        while (item := session.state(who)["item"]) is not None:
            case = session._current[who][1]
            rank = sorted({i.config_id for i in session.plan}).index(case.config_id)
            session.rate(who, item["token"], {a["id"]: min(a["max"], rank * 3 + shift * (k % 2))
                                              for k, a in enumerate(item["axes"])})
    ctx = Context(RunData.load(store))
    table = judge_human_table(ctx, "figure-to-slide", key="k", title="t")
    [row] = [r for r in table.rows if r["axis"] == "total"]
    assert row["cases"] == 48 and row["clusters"] == 6
    human = {}
    for rating in store.iter(Rating):
        human.setdefault((rating.task_id, rating.config_id), []).append(
            sum(rating.scores.values()))
    judge = {}
    for (task, config), outcome in ctx.data.outcomes.items():
        totals = [j.total for j in ctx.data.judgments[outcome.artifact] if j.total is not None]
        judge[(task, config)] = np.mean(totals)
    keys = sorted(human)
    expected = pearsonr([judge[k] for k in keys], [np.mean(human[k]) for k in keys]).statistic
    estimate = row["pearson"]
    assert estimate.value == pytest.approx(expected, abs=1e-9)
    assert estimate.low <= estimate.value <= estimate.high
    agreement = expert_agreement_table(ctx, "figure-to-slide", key="a", title="t")
    assert {r["axis"] for r in agreement.rows} >= {"total"}
    assert all(r["units"] == 48 and r["annotators"] == 2 for r in agreement.rows)
    raters = raters_table(ctx, "figure-to-slide", key="r", title="t").rows
    assert [(r["annotator"], r["ratings"], r["undone"]) for r in raters] == [
        ("alice", 48, 0), ("bob", 48, 0)]
    first = next(iter(load_rubric(family="figure-to-slide").axes)).id
    assert raters[0][first] == pytest.approx(np.mean(
        [r.scores[first] for r in store.iter(Rating) if r.annotator == "alice"]))


def test_nothing_to_rate_is_said_and_nothing_is_served(tmp_path, make_run, capsys) -> None:
    empty = RunStore.create(tmp_path / "empty")
    assert cli(["annotate", str(empty.root), "--rate", "--no-open", "--port", "0"]) == 1
    assert "nothing to rate: the run has no attempts yet" in " ".join(
        capsys.readouterr().err.split())
    failed = make_run("failed", gate_failures=1.0)
    assert cli(["annotate", str(failed.root), "--rate", "--no-open", "--port", "0"]) == 1
    said = " ".join(capsys.readouterr().err.split())
    assert "nothing to rate" in said and "failed the gate" in said
