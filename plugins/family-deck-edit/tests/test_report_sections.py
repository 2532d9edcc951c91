"""The deck-edit report sections on a run store made by hand: the oracle marked, the hard subset
apart, the system score with a missing case, repeats' stability and a second judge's ranks."""

from __future__ import annotations

import hashlib

from refig.models import Configuration, Inspection
from refig.plugin import (
    Asset,
    Attempt,
    AttemptStatus,
    AxisScore,
    ErrorInfo,
    GateResult,
    Judgment,
    JudgmentStatus,
    Task,
)
from refig.store import RunStore
from refig_family_deck_edit.report.paper import PPTARENA
from refig_toolkit_analysis import analysis_for
from refig_toolkit_analysis.papers import Made, NotMade, tables_of

RUBRIC = "0" * 64


def _judgment(sha: str, judge: str, repeat: int, i: int, v: int) -> Judgment:
    return Judgment(artifact_sha256=sha, judge=judge, judge_key=judge, rubric_sha256=RUBRIC,
                    rubric_version="1", repeat=repeat, status=JudgmentStatus.OK, total=i + v,
                    scores=(AxisScore(axis="instruction_following", score=i, max_score=5),
                            AxisScore(axis="visual_quality", score=v, max_score=5)))


def test_tables_from_a_hand_made_run(tmp_path):
    store = RunStore.create(tmp_path / "run")
    tasks = []
    for k, (category, hard) in enumerate((("Content", False), ("Layout", True))):
        deck = store.objects.put_bytes(f"deck {k}".encode())
        target = store.objects.put_bytes(f"target {k}".encode())
        tasks.append(Task(id=f"t{k}", family="deck-edit", instruction="edit", inputs={
            "deck": Asset(path=f"d{k}.pptx", sha256=deck),
            "target": Asset(path=f"t{k}.pptx", sha256=target, visible=False)},
            meta={"categories": [category], "edit_type": "tables", "hard": hard}))
    store.put_many(tasks)
    scores = {"identity": [(0, 4), (0, 3)], "oracle": [(5, 5), (5, 5)], "agent": [(3, 4), None]}
    for harness, per_task in scores.items():
        config = Configuration(model="none", harness=harness, workflow="direct")
        store.put(config)
        for task, pair in zip(tasks, per_task, strict=True):
            if pair is None:
                continue  # the agent's attempt on the hard task left nothing
            sha = hashlib.sha256(f"{harness}{task.id}".encode()).hexdigest()
            store.objects.put_bytes(f"{harness}{task.id}".encode())
            store.put(Attempt(task_id=task.id, config_id=config.id,
                              status=AttemptStatus.SUCCEEDED, outputs={"deck": sha}))
            store.put(Inspection(artifact_sha256=sha, inspector="deck-ooxml/1",
                                 gate=GateResult(passed=True, slides=8)))
            for repeat in range(3):  # identity's repeats disagree on IF: 0, 1, 2
                i = pair[0] + (repeat if harness == "identity" else 0)
                store.put(_judgment(sha, "deck-metrics", repeat, i, pair[1]))
            second = _judgment(sha, "second", 0, max(0, pair[0] - 1), pair[1])
            store.put(second.model_copy(update={"deterministic": True}))
    analysis = analysis_for(store.root, {"judge": "deck-metrics", "resamples": 200})
    full = {r["config"]: r for r in analysis.table("deck-edit").rows}
    oracle = next(k for k in full if "@oracle/" in k)
    assert oracle.endswith("(oracle)") and full[oracle]["if"] == 5.0
    identity = next(k for k in full if "@identity/" in k)
    assert full[identity]["if"] == 1.0 and full[identity]["judged"] == "2 / 2"
    agent = next(k for k in full if "@agent/" in k)
    assert full[agent]["judged"] == "1 / 2"
    assert full[agent]["system"] == (3 / 5 * 100 + 4 / 5 * 100) / 2 / 2  # the missing case: 0
    # IF% and VQ% over the two expected cases (a share of 1), the missing one 0
    assert full[agent]["if_pct"] == 3 / 5 / 2 and full[agent]["vq_pct"] == 4 / 5 / 2
    hard = {r["config"]: r for r in analysis.table("deck-edit-hard").rows}
    assert hard[agent]["judged"] == "0 / 1" and hard[agent]["system"] == 0.0
    categories = {(r["config"], r["label"]): r for r in analysis.table("deck-edit-category").rows}
    assert categories[(agent, "Content")]["if"] == 3.0
    assert categories[(agent, "Layout")]["if_pct"] == 0.0  # its one expected case is missing
    assert categories[(agent, "Content")]["if_pct"] == 3 / 5
    stability = {r["judge"]: r for r in analysis.table("deck-judge-stability").rows}
    # five cases judged thrice; identity's two have no IF majority
    assert stability["deck-metrics"]["vq"] == 1.0 and stability["deck-metrics"]["if"] == 0.6
    assert "second" not in stability  # deterministic: scored once, no row of empty cells
    assert any("not applicable: deterministic judge (second)" in n
               for n in analysis.table("deck-judge-stability").notes)
    for table in analysis.tables:  # notes are joined with "; ", the list ends with "."
        assert not any(n.endswith(".") for n in table.notes), (table.key, table.notes)
    ranks = {r["judge"]: r for r in analysis.table("deck-judge-ranks").rows}
    assert ranks["second"]["spearman"] == 1.0
    # --paper pptarena: the tables come from this run; the executor block needs a hybrid
    # (PPTPilot-style) configuration, which this run has not
    options = {"judge": "deck-metrics", "resamples": 200}
    made = {item.name: tables_of(item, store.root, options) for item in PPTARENA.items}
    assert {n for n, m in made.items() if isinstance(m, NotMade)} == {"table7"}
    assert "hybrid" in made["table7"].reason
    main = made["main-results"]
    assert isinstance(main, Made)
    assert [(r["config"], r["system"]) for r in main.tables[0][1].rows] == [
        (r["config"], r["system"]) for r in analysis.table("deck-edit").rows]


def _failures_run(root):
    """Two tasks; the agent's deck on t0 is judged (IF 4, VQ 2: case score 60), its attempt on
    t1 refused by the provider (``bad_request``); the other agent timed out on t1 itself."""
    store = RunStore.create(root)
    tasks = []
    for k in range(2):
        deck = store.objects.put_bytes(f"deck {k}".encode())
        target = store.objects.put_bytes(f"target {k}".encode())
        tasks.append(Task(id=f"t{k}", family="deck-edit", instruction="edit", inputs={
            "deck": Asset(path=f"d{k}.pptx", sha256=deck),
            "target": Asset(path=f"t{k}.pptx", sha256=target, visible=False)},
            meta={"categories": ["Content"], "edit_type": "tables"}))
    store.put_many(tasks)
    failures = {"refused": ErrorInfo(kind="bad_request", message="model call 1 (HTTP 400)"),
                "slow": ErrorInfo(kind="no_output", message="the agent wrote no deck")}
    for harness, error in failures.items():
        config = Configuration(model="none", harness=harness, workflow="direct")
        store.put(config)
        sha = hashlib.sha256(f"{harness}t0".encode()).hexdigest()
        store.objects.put_bytes(f"{harness}t0".encode())
        store.put(Attempt(task_id="t0", config_id=config.id, status=AttemptStatus.SUCCEEDED,
                          outputs={"deck": sha}))
        store.put(Inspection(artifact_sha256=sha, inspector="deck-ooxml/1",
                             gate=GateResult(passed=True, slides=8)))
        store.put(_judgment(sha, "deck-metrics", 0, 4, 2))
        store.put(Attempt(task_id="t1", config_id=config.id, status=AttemptStatus.FAILED,
                          error=error))
    return store


def test_infrastructure_failures_out_of_refig_means_but_zero_in_pptarenas_system(tmp_path):
    store = _failures_run(tmp_path / "run")
    rows = {}
    for counted in (False, True):
        analysis = analysis_for(store.root, {"judge": "deck-metrics", "resamples": 200,
                                             "count_failures": counted})
        table = analysis.table("deck-edit")
        rows[counted] = {r["config"].split("@")[1].split("/")[0]: r for r in table.rows}
        notes = " ".join(table.notes)
        assert "1 attempt failed for the provider or the set-up" in notes
        assert ("scoring 0 (--count-failures)" in notes) is counted
    refused, slow = rows[False]["refused"], rows[False]["slow"]
    # the model's own failure is a judged 0 either way; PPTArena's system score counts both 0
    assert (slow["if"], slow["case"], slow["system"]) == (2.0, 30.0, 30.0)
    assert slow["system_measured"] == 30.0 and slow["judged"] == "2 / 2"
    # the provider's refusal: out of IF, VQ, the case score and refig's system score
    assert (refused["if"], refused["vq"], refused["case"]) == (4.0, 2.0, 60.0)
    assert refused["system_measured"] == 60.0
    assert refused["system"] == 30.0  # PPTArena: a missing case is 0 over the expected cases
    assert refused["judged"] == "1 / 2 (1 infra.)"
    categories = {r["config"].split("@")[1].split("/")[0]: r
                  for r in analysis_for(store.root, {"judge": "deck-metrics", "resamples": 200})
                  .table("deck-edit-category").rows}
    assert categories["refused"]["if"] == 4.0 and categories["refused"]["cases"] == 1
    # --count-failures: a judged 0 like the model's own failure, in every column
    counted = rows[True]["refused"]
    assert (counted["if"], counted["case"], counted["system"], counted["system_measured"]) == (
        2.0, 30.0, 30.0, 30.0)
    assert counted["judged"] == "2 / 2"
