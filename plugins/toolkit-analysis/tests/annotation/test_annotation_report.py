"""The report's annotator tables on votes cast through a session: kappas equal the references."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from refig.models import Preference
from refig_toolkit_analysis.analysis import Options, analyse
from refig_toolkit_analysis.annotation.agreement import OUTCOMES, outcome
from refig_toolkit_analysis.annotation.candidates import load_candidates
from refig_toolkit_analysis.annotation.planner import build_plan
from refig_toolkit_analysis.annotation.session import Session
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats import inter_rater

ANNOTATORS = ("ann", "bea", "cid")


def test_annotator_tables(make_run) -> None:
    store = make_run()
    candidates = load_candidates(store)
    session = Session(store, candidates, build_plan(candidates, seed=2), replication=3)
    rng = np.random.default_rng(0)
    for name in ANNOTATORS:
        while (state := session.state(name))["item"] is not None:
            choice = str(rng.choice(["A", "B", "tie"], p=[0.45, 0.4, 0.15]))
            session.vote(name, state["item"]["token"], choice, seconds=float(rng.uniform(2, 9)))
    session.undo("cid")
    state = session.state("cid")
    session.vote("cid", state["item"]["token"], "tie")
    analysis = analyse(store, Options(resamples=300, elo_resamples=100))

    active = [v for v in store.iter(Preference) if v.active]
    answers = {
        name: {
            (v.task_id, *sorted((v.left, v.right))): outcome(v)
            for v in active
            if v.annotator == name
        }
        for name in ANNOTATORS
    }
    items = sorted(answers["ann"])
    assert all(sorted(answers[n]) == items for n in ANNOTATORS)
    rows = {r["annotators"]: r for r in analysis.table("annotator_agreement").rows}
    for u, v in itertools.combinations(ANNOTATORS, 2):
        row = rows[f"{u} vs {v}"]
        reference = cohen_kappa_score(
            [answers[u][k] for k in items], [answers[v][k] for k in items]
        )
        assert row["items"] == len(items) and row["kappa"].value == pytest.approx(reference)
        assert row["kappa"].low < row["kappa"].value < row["kappa"].high
        assert row["figures"] == len({store_cluster(k[0]) for k in items})
    counts = np.array(
        [[[answers[n][k] for n in ANNOTATORS].count(o) for o in OUTCOMES] for k in items]
    )
    assert rows["all 3"]["kappa"].value == pytest.approx(inter_rater.fleiss_kappa(counts))

    votes = {r["annotator"]: r for r in analysis.table("annotator_votes").rows}
    assert votes["cid"]["undone"] == 1 and votes["ann"]["undone"] == 0
    assert votes["ann"]["votes"] == len(items) and votes["ann"]["shared"] == len(items)
    decisive = [v for v in active if v.annotator == "bea" and v.choice != "tie"]
    left = sum(v.choice == "A" for v in decisive) / len(decisive)
    assert votes["bea"]["left"].value == pytest.approx(left)
    assert 2 <= votes["bea"]["median_seconds"] <= 9


def store_cluster(task_id: str) -> str:
    """``make_run`` puts two tasks on each source figure."""
    return str(int(task_id.split("-")[1]) // 2)


def test_tables_say_what_is_missing(make_run) -> None:
    store = make_run(tasks=3)
    analysis = analyse(store, Options(resamples=100, elo_resamples=20))
    assert "refig annotate RUN" in analysis.table("annotator_agreement").insufficient
    candidates = load_candidates(store)
    session = Session(store, candidates, build_plan(candidates))
    session.vote("solo", session.state("solo")["item"]["token"], "A")
    analysis = analyse(store, Options(resamples=100, elo_resamples=20))
    assert (
        "no comparison voted on by two of them"
        in analysis.table("annotator_agreement").insufficient
    )
    assert analysis.table("annotator_votes").rows[0]["votes"] == 1
