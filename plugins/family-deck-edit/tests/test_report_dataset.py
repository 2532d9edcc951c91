"""PPTArena's dataset statistics (Tables 2 and 3) and the executor block (Table 7) on a run store
made by hand, each number against a direct computation (python-pptx, numpy, Counter)."""

from __future__ import annotations

import io
from collections import Counter

import numpy as np
import pytest
from pptx import Presentation
from refig.models import Configuration, Inspection
from refig.plugin import (
    Asset,
    Attempt,
    AttemptStatus,
    AxisScore,
    GateResult,
    Judgment,
    JudgmentStatus,
    MetricValue,
    Task,
    Usage,
)
from refig.store import RunStore
from refig_family_deck_edit.family import reference_key
from refig_toolkit_analysis import analysis_for

#: Each task: deck slides (a deck is shared by tasks with the same count), categories, edit
#: type, operations, hard, requested changes, slides the oracle's selection holds.
TASKS = {
    "t0": (3, ["Content", "Layout"], "text", ["text", "layout"], False, 4, 2),
    "t1": (5, ["Styling"], "theme", ["theme"], True, 1, 5),
    "t2": (3, ["Content"], "text", ["text"], False, 2, 1),
}
#: Per configuration (model, harness, workflow): per task (IF, VQ), turns, tokens, cost, seconds;
#: None: no attempt.
RUNS = {
    ("m", "agent", "hybrid"): {"t0": ((4, 3), 6, 1000, 200, 0.5, 30.0),
                               "t1": ((2, 5), 8, 3000, 400, None, 50.0), "t2": None},
    ("m", "agent", "toolchain"): {"t0": ((3, 3), 4, 800, 100, 0.25, 20.0),
                                  "t1": ((1, 2), 2, 500, 50, 0.125, 10.0),
                                  "t2": ((5, 5), 3, 600, 70, 0.375, 15.0)},
    ("none", "oracle", "direct"): {t: ((5, 5), None, 0, 0, None, 1.0) for t in TASKS},
}


def _deck(slides: int) -> bytes:
    deck = Presentation()
    for _ in range(slides):
        deck.slides.add_slide(deck.slide_layouts[6])
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()


def _judgment(sha: str, i: int, v: int) -> Judgment:
    return Judgment(artifact_sha256=sha, judge="deck-metrics", judge_key="deck-metrics",
                    rubric_sha256="0" * 64, rubric_version="1", repeat=0,
                    status=JudgmentStatus.OK, total=i + v,
                    scores=(AxisScore(axis="instruction_following", score=i, max_score=5),
                            AxisScore(axis="visual_quality", score=v, max_score=5)))


@pytest.fixture(scope="module")
def analysis(tmp_path_factory):
    store = RunStore.create(tmp_path_factory.mktemp("dataset") / "run")
    decks = {n: store.objects.put_bytes(_deck(n)) for n in {t[0] for t in TASKS.values()}}
    tasks = {}
    for task_id, (slides, categories, edit_type, operations, hard, _, _) in TASKS.items():
        target = store.objects.put_bytes(f"target {task_id}".encode())
        tasks[task_id] = Task(
            id=task_id, family="deck-edit", instruction="edit",
            inputs={"deck": Asset(path="d.pptx", sha256=decks[slides]),
                    "target": Asset(path="t.pptx", sha256=target, visible=False)},
            meta={"categories": categories, "edit_type": edit_type, "operations": operations,
                  "hard": hard})
    store.put_many(list(tasks.values()))
    for (model, harness, workflow), per_task in RUNS.items():
        config = Configuration(model=model, harness=harness, workflow=workflow)
        store.put(config)
        for task_id, run in per_task.items():
            if run is None:
                continue
            (i, v), turns, tokens_in, tokens_out, cost, seconds = run
            sha = store.objects.put_bytes(f"{config.id}{task_id}".encode())
            store.put(Attempt(task_id=task_id, config_id=config.id,
                              status=AttemptStatus.SUCCEEDED, outputs={"deck": sha},
                              turns=turns, usage=Usage(input_tokens=tokens_in,
                                                       output_tokens=tokens_out),
                              cost_usd=cost, wall_seconds=seconds))
            store.put(Inspection(artifact_sha256=sha, inspector="deck-ooxml/3",
                                 gate=GateResult(passed=True, slides=3)))
            store.put(_judgment(sha, i, v))
            requested, touched = TASKS[task_id][5], TASKS[task_id][6]
            selected = touched if harness == "oracle" else touched + 3  # the agent's own extra
            for name, value in (("requested", requested), ("selected_slides", selected)):
                store.put(MetricValue(artifact_sha256=sha, metric="deck-diff", name=name,
                                      value=value, version="2",
                                      reference_sha256=reference_key(tasks[task_id])))
    return analysis_for(store.root, {"judge": "deck-metrics", "resamples": 100}), store


def test_dataset_statistics_equal_a_direct_computation(analysis):
    result, store = analysis
    rows = {r["statistic"]: r for r in result.table("deck-dataset").rows}
    assert rows["cases"]["total"] == 3 and rows["hard-subset cases"]["total"] == 1
    distinct = {t.inputs["deck"].sha256 for t in store.iter(Task)}
    assert rows["original decks (distinct)"]["total"] == len(distinct) == 2
    # slides per distinct deck, read back with python-pptx
    counts = [len(Presentation(str(store.objects.path(sha))).slides) for sha in distinct]
    slides = rows["slides per deck"]
    assert (slides["total"], slides["mean"], slides["min"], slides["max"]) == (
        sum(counts), np.mean(counts), min(counts), max(counts))
    assert slides["counted"] == "2 / 2 decks"
    requested = [t[5] for t in TASKS.values()]
    assert rows["requested changes per case"]["mean"] == pytest.approx(np.mean(requested))
    assert rows["requested changes per case"]["median"] == np.median(requested)
    touched = [t[6] for t in TASKS.values()]  # the oracle's selection, never the agent's
    assert rows["slides touched per edit"]["mean"] == pytest.approx(np.mean(touched))
    assert rows["slides touched per edit"]["max"] == max(touched)
    categories = [len(t[1]) for t in TASKS.values()]
    assert rows["categories per case"]["mean"] == pytest.approx(np.mean(categories))


def test_cases_by_category_edit_type_and_operation_equal_counters(analysis):
    result, _ = analysis
    table = result.table("deck-dataset-types")
    got = {(r["kind"], r["label"]): (r["cases"], r["hard"]) for r in table.rows}
    for kind, index in (("category", 1), ("edit type", 2), ("operation", 3)):
        def labels(task, index=index):
            value = task[index]
            return value if isinstance(value, list) else [value]
        cases = Counter(name for task in TASKS.values() for name in labels(task))
        hard = Counter(name for task in TASKS.values() if task[4] for name in labels(task))
        assert {k[1]: v for k, v in got.items() if k[0] == kind} == {
            name: (n, hard[name]) for name, n in cases.items()}
    share = {(r["kind"], r["label"]): r["share"] for r in table.rows}
    assert share[("category", "Content")] == 2 / 3


def test_the_executor_block_holds_each_pilot_models_executors(analysis):
    result, _ = analysis
    table = result.table("deck-executor")
    rows = {r["config"].split("/")[-1]: r for r in table.rows}
    assert set(rows) == {"hybrid", "toolchain"}  # the oracle ran no model that piloted
    assert rows["hybrid"]["executor"].endswith("(PPTPilot)")
    for workflow, row in rows.items():
        runs = [r for r in RUNS[("m", "agent", workflow)].values() if r is not None]
        assert row["attempts"] == f"{len(runs)} / {len(runs)}"
        assert row["turns"] == pytest.approx(np.mean([r[1] for r in runs]))
        assert row["input_tokens"] == pytest.approx(np.mean([r[2] for r in runs]))
        priced = [r[4] for r in runs if r[4] is not None]
        assert row["cost"] == pytest.approx(np.mean(priced))
        assert row["seconds"] == pytest.approx(np.mean([r[5] for r in runs]))
        # IF% over the three expected cases, the missing one 0
        assert row["if_pct"] == pytest.approx(sum(r[0][0] for r in runs) / 5 / len(TASKS))
        assert row["if"] == pytest.approx(np.mean([r[0][0] for r in runs]))
