"""`refig report` and the analysis layer on run stores written record by record (real SQLite).

The hand-built run has known structure: each table's numbers are recomputed here from the values
written, with plain loops, and compared with what the report prints.
"""

from __future__ import annotations

import json
import math
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from refig import stats
from refig.analysis import Estimate, Options, analyse
from refig.cli import run as cli
from refig.console import out as console
from refig.models import (
    Asset,
    Attempt,
    AttemptStatus,
    AxisScore,
    Configuration,
    ErrorInfo,
    GateReason,
    GateResult,
    Inspection,
    Judgment,
    JudgmentStatus,
    MetricValue,
    Output,
    Preference,
    Task,
)
from refig.pptx import ObjectTree
from refig.store import RunStore
from refig.testing.synthetic import RUBRIC, SyntheticSpec, synthetic_run
from scipy import stats as sps

A = Configuration(model="m", harness="h1", workflow="direct")
B = Configuration(model="m", harness="h1", workflow="specialized")
C = Configuration(model="m", harness="h2", workflow="direct")
CONFIGS = (A, B, C)
TASKS = [f"t{i}" for i in range(6)]
TOP = np.array([m for _, m in RUBRIC])
AXES = [a for a, _ in RUBRIC]


def _points(config: int, task: int) -> np.ndarray:
    """Judge j1's repeat-0 points: a known pattern per configuration and task."""
    base = np.array([10.0, 12.0, 8.0, 10.0, 5.0])
    base[1] += task  # semantic grows with the task
    base[3] += 4 * config - 2 * (config == 2) * task  # editability differs by configuration
    base[0] += config
    return np.clip(base, 0, TOP)


class HandRun:
    """Writes the run and keeps the expected per-cell values (NaN unscored, zeros gated)."""

    def __init__(self, root: Path):
        self.store = RunStore.create(root)
        self.expected: dict[tuple[int, int], np.ndarray] = {}  # judge j1 means, axes + total
        self.expected_j2: dict[tuple[int, int], float] = {}
        self.repeats: dict[tuple[int, int], list[float]] = {}
        self.connectors: dict[int, list[int]] = {0: [], 1: [], 2: []}
        self.turns: dict[int, list[int]] = {0: [], 1: [], 2: []}
        self.costs: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self.gates: dict[tuple[int, int], str] = {}
        records: list[Any] = list(CONFIGS)
        for task in TASKS:
            sha = self.store.objects.put_bytes(f"source {task}".encode())
            records.append(
                Task(
                    id=task, family="figure-to-slide",
                        inputs={"figure": Asset(path=f"{task}.png", sha256=sha)}
                )
            )
        for c, config in enumerate(CONFIGS):
            for t, task in enumerate(TASKS):
                records += self._cell(c, config, t, task)
        self.store.put_many(records)

    def _attempt(
        self,
        c: int,
        t: int,
        try_index: int,
        slide: str | None,
        *,
        ok: bool = True,
        turns: int = 5,
        cost: float = 0.1,
    ) -> Attempt:
        return Attempt(
            task_id=TASKS[t],
            config_id=CONFIGS[c].id,
            try_index=try_index,
            status=AttemptStatus.SUCCEEDED if ok else AttemptStatus.FAILED,
            error=None if ok else ErrorInfo(kind="timeout"),
            outputs={Output.SLIDE: slide} if slide else {},
            turns=turns,
            cost_usd=cost,
        )

    def _judgment(
        self, slide: str, judge: str, repeat: int, points: np.ndarray | None, rationale: str = ""
    ) -> Judgment:
        if points is None:
            return Judgment(
                artifact_sha256=slide,
                judge=judge,
                judge_key=f"k-{judge}",
                rubric_sha256="0" * 64,
                rubric_version="1",
                repeat=repeat,
                status=JudgmentStatus.FAILED,
                error=ErrorInfo(kind="invalid"),
            )
        return Judgment(
            artifact_sha256=slide,
            judge=judge,
            judge_key=f"k-{judge}",
            rubric_sha256="0" * 64,
            rubric_version="1",
            repeat=repeat,
            status=JudgmentStatus.OK,
            total=float(points.sum()),
            scores=tuple(
                AxisScore(
                    axis=a, score=float(p), max_score=float(m), rationale=rationale or f"{a} reason"
                )
                for a, p, m in zip(AXES, points, TOP, strict=True)
            ),
        )

    def _cell(self, c: int, config: Configuration, t: int, task: str) -> list[Any]:
        slide = self.store.objects.put_bytes(f"slide {config.id} {task}".encode())
        turns, cost = 4 + c + t, round(0.1 * (c + 1) + 0.01 * t, 4)
        records: list[Any] = []
        if (c, t) == (2, 2):  # every attempt failed: a gate failure with reason missing
            records += [self._attempt(c, t, 0, None, ok=False, turns=turns, cost=cost)]
            self.gates[(c, t)] = "missing"
            self.expected[(c, t)] = np.zeros(6)
            self.expected_j2[(c, t)] = 0.0
            self.turns[c].append(turns)
            self.costs[c].append(cost)
            return records
        if (c, t) == (0, 5):  # an earlier success on another slide, a later failure: use try 1
            old = self.store.objects.put_bytes(b"older slide")
            records += [
                self._attempt(c, t, 0, old, turns=99, cost=9.0),
                self._judgment(old, "j1", 0, TOP.copy()),
                self._attempt(c, t, 2, None, ok=False, turns=50, cost=5.0),
            ]
        records.append(
            self._attempt(c, t, 1 if (c, t) == (0, 5) else 0, slide, turns=turns, cost=cost)
        )
        self.turns[c].append(turns)
        self.costs[c].append(cost)
        if (c, t) == (2, 3):  # not evaluated yet: unscored, not zero
            self.expected[(c, t)] = np.full(6, np.nan)
            self.expected_j2[(c, t)] = math.nan
            return records
        structural_fail = (c, t) == (1, 0)
        render_fail = (c, t) == (1, 1)
        records.append(
            Inspection(
                artifact_sha256=slide,
                inspector="test",
                gate=GateResult(
                    passed=not structural_fail,
                    reason=GateReason.MULTIPLE_SLIDES if structural_fail else None,
                ),
                structure=None
                if structural_fail
                else ObjectTree(slide_width=1, slide_height=1).model_dump(),
            )
        )
        if render_fail:
            records.append(
                MetricValue(
                    artifact_sha256=slide,
                    metric="gate",
                    name="passed",
                    value=0.0,
                    detail={"reason": "render_failed"},
                )
            )
        if structural_fail or render_fail:
            self.gates[(c, t)] = "multiple_slides" if structural_fail else "render_failed"
            self.expected[(c, t)] = np.zeros(6)
            self.expected_j2[(c, t)] = 0.0
            return records
        connectors = (c * 2 + t) % 4  # zero for some artifacts
        self.connectors[c].append(connectors)
        records += [
            MetricValue(
                artifact_sha256=slide,
                metric="connector-audit",
                name="has_native_connector",
                value=float(connectors > 0),
            ),
            MetricValue(
                artifact_sha256=slide,
                metric="connector-audit",
                name="connector_count",
                value=float(connectors),
            ),
        ]
        p0 = _points(c, t)
        p1 = p0 + np.array([1.0, 0, 0, 0, 0])
        if (c, t) == (0, 0):  # the second repeat failed: the mean is repeat 0 alone
            records += [
                self._judgment(slide, "j1", 0, p0, "<script>alert(1)</script> & co"),
                self._judgment(slide, "j1", 1, None),
            ]
            mean = p0
            self.repeats[(c, t)] = [p0.sum()]
        else:
            records += [self._judgment(slide, "j1", 0, p0), self._judgment(slide, "j1", 1, p1)]
            mean = (p0 + p1) / 2
            self.repeats[(c, t)] = [p0.sum(), p1.sum()]
        self.expected[(c, t)] = np.append(mean, mean.sum())
        j2 = np.clip(mean - np.array([1.0, 1, 0, 0, 0]) * (c == 1), 0, TOP)
        records.append(self._judgment(slide, "j2", 0, j2))
        self.expected_j2[(c, t)] = float(j2.sum())
        return records

    def matrix(self, c: int) -> np.ndarray:
        return np.array([self.expected[(c, t)] for t in range(len(TASKS))])


VOTES = [  # (task, left, right, choice)
    (0, 0, 1, "A"),
    (1, 1, 0, "B"),
    (2, 0, 2, "A"),
    (3, 2, 0, "tie"),
    (4, 1, 2, "A"),
    (5, 2, 1, "B"),
    (0, 0, 2, "A"),
    (1, 2, 1, "A"),
    (2, 1, 0, "A"),
    (3, 0, 1, "B"),
    (4, 0, 2, "B"),
    (5, 1, 2, "tie"),
    (0, 1, 2, "A"),
    (1, 0, 2, "A"),
]


@pytest.fixture(scope="module")
def hand(tmp_path_factory: pytest.TempPathFactory) -> HandRun:
    run = HandRun(tmp_path_factory.mktemp("hand") / "run")
    run.store.put_many(
        [
            Preference(
                id=f"v{k}",
                annotator="ann",
                task_id=TASKS[t],
                left=CONFIGS[left].id,
                right=CONFIGS[right].id,
                choice=choice,
            )  # type: ignore[arg-type]
            for k, (t, left, right, choice) in enumerate(VOTES)
        ]
    )
    return run


@pytest.fixture(scope="module")
def hand_analysis(hand: HandRun):
    return analyse(hand.store, Options(judge="j1", resamples=2000, elo_resamples=300))


def _row(analysis, key: str, **match: Any) -> dict:
    table = analysis.table(key)
    assert table is not None, key
    found = [r for r in table.rows if all(r.get(k) == v for k, v in match.items())]
    assert len(found) == 1, (key, match, table.rows)
    return found[0]


def test_coverage_counts_attempts_gates_and_scores(hand: HandRun, hand_analysis) -> None:
    row_b = _row(hand_analysis, "coverage", config=B.id)
    assert row_b["gate_passed"] == 4
    assert row_b["gate_failures"] == "multiple_slides 1, render_failed 1"
    row_c = _row(hand_analysis, "coverage", config=C.id)
    assert (row_c["succeeded"], row_c["unevaluated"], row_c["scored"]) == (5, 1, 5)
    assert row_c["gate_failures"] == "missing 1"
    assert _row(hand_analysis, "coverage", config=A.id)["judge_failures"] == 1


def test_means_use_latest_success_and_score_gate_failures_zero(
    hand: HandRun, hand_analysis
) -> None:
    for c, config in enumerate(CONFIGS):
        cells = hand.matrix(c)
        cells = cells[np.isfinite(cells).all(axis=1)]
        row = _row(hand_analysis, "means", config=config.id)
        assert row["n"] == len(cells)
        for a, key in enumerate([*AXES, "total"]):
            estimate = row[key]
            assert isinstance(estimate, Estimate)
            assert estimate.value == pytest.approx(cells[:, a].mean())
        ref = stats.bootstrap_ci(cells[:, -1], resamples=2000, seed=0)
        assert isinstance(ref, stats.Interval)
        assert (row["total"].low, row["total"].high) == pytest.approx((ref.low, ref.high))
    # A's task 5 uses try 1 (the latest success), not the perfect-scoring try 0.
    assert _row(hand_analysis, "task_scores", config=A.id, task="t5", judge="j1")["total"] == (
        pytest.approx(hand.expected[(0, 5)][-1])
    )
    gated = _row(hand_analysis, "task_scores", config=B.id, task="t1", judge="j1")
    assert (gated["gate"], gated["total"]) == ("render_failed", 0.0)
    edit = [np.nanmean(hand.matrix(c)[:, 3]) for c in range(3)]
    best = hand_analysis.table("means").best_rows("editability")
    assert [hand_analysis.table("means").rows[i]["config"] for i in best] == [
        CONFIGS[int(np.argmax(edit))].id
    ]


def test_paired_effects_and_weight_threshold(hand: HandRun, hand_analysis) -> None:
    row = _row(hand_analysis, "effects", kind="workflow")
    assert (row["treatment"], row["baseline"]) == (B.id, A.id)
    a, b = hand.matrix(0), hand.matrix(1)
    both = np.isfinite(a).all(axis=1) & np.isfinite(b).all(axis=1)
    diff = b[both, -1] - a[both, -1]
    assert row["n"] == int(both.sum())
    assert row["d_total"].value == pytest.approx(diff.mean())
    ref = stats.paired_bootstrap_ci(b[both, -1], a[both, -1], resamples=2000, seed=0)
    assert isinstance(ref, stats.Interval)
    assert (row["d_total"].low, row["d_total"].high) == pytest.approx((ref.low, ref.high))
    assert row["d_cost"] == pytest.approx(np.mean(hand.costs[1]) - np.mean(hand.costs[0]))
    harness = _row(hand_analysis, "effects", kind="harness")
    assert (harness["treatment"], harness["baseline"]) == (C.id, A.id)
    # The editability weight at which B - A changes sign, from the closed form.
    u = (b[both, :5] - a[both, :5]).mean(axis=0) / TOP
    d_e = u[3]
    d_o = (TOP * u)[[0, 1, 2, 4]].sum() / 75
    w_star = 100 * d_o / (d_o - d_e)
    weights = _row(hand_analysis, "weights", kind="workflow")
    if 0 <= w_star <= 100:
        assert weights["threshold"] == pytest.approx(w_star)
    else:
        assert weights["threshold"] == "none"
    assert weights["effect"] == pytest.approx(diff.mean())


def test_structural_economics_and_repeatability(hand: HandRun, hand_analysis) -> None:
    for c, config in enumerate(CONFIGS):
        row = _row(hand_analysis, "structural", config=config.id)
        counts = hand.connectors[c]
        assert row["no_connector"] == pytest.approx(np.mean([n == 0 for n in counts]))
        assert row["median_connectors"] == pytest.approx(np.median(counts))
        cells = hand.matrix(c)
        semantic = cells[np.isfinite(cells[:, 1]), 1]
        assert row["semantic_under_half"] == pytest.approx(np.mean(semantic < 15))
        econ = _row(hand_analysis, "economics", config=config.id)
        assert econ["median_turns"] == pytest.approx(np.median(hand.turns[c]))
        assert econ["mean_cost"] == pytest.approx(np.mean(hand.costs[c]))
    rep = _row(hand_analysis, "repeatability", judge="j1", config="all")
    multi = [r for r in hand.repeats.values() if len(r) == 2]
    assert rep["targets"] == len(multi)
    assert rep["mean_sd"] == pytest.approx(np.mean([np.std(r, ddof=1) for r in multi]))
    icc = stats.icc_2_1(np.array(multi))
    assert rep["icc"].value == pytest.approx(icc.icc)
    assert _row(hand_analysis, "repeatability", judge="j2", config="all")["targets"] == 0


def test_cross_judge_agreement(hand: HandRun, hand_analysis) -> None:
    row = _row(hand_analysis, "judge_agreement", judges="j1 vs j2")
    m1, m2 = [], []
    for c in range(3):
        both = [t for t in range(6) if np.isfinite(hand.expected[(c, t)][-1])]
        m1.append(np.mean([hand.expected[(c, t)][-1] for t in both]))
        m2.append(np.mean([hand.expected_j2[(c, t)] for t in both]))
    assert row["spearman"] == pytest.approx(sps.spearmanr(m1, m2).statistic)
    assert row["kendall"] == pytest.approx(sps.kendalltau(m1, m2).statistic)
    artifacts = [
        (hand.expected[k][-1], hand.expected_j2[k])
        for k in hand.expected
        if k not in hand.gates and np.isfinite(hand.expected[k][-1])
    ]
    assert row["artifacts"] == len(artifacts)
    x, y = zip(*artifacts, strict=True)
    assert row["pearson_artifacts"] == pytest.approx(sps.pearsonr(x, y).statistic)


def test_elo_and_direction_agreement(hand: HandRun, hand_analysis) -> None:
    score = {"A": 1.0, "B": 0.0, "tie": 0.5}
    comps = [
        stats.Comparison(CONFIGS[left].id, CONFIGS[right].id, score[ch], TASKS[t])
        for t, left, right, ch in VOTES
    ]
    ref = stats.bradley_terry_elo(comps, resamples=300, seed=0)
    for item, rating, low, high in zip(ref.items, ref.rating, ref.low, ref.high, strict=True):
        row = _row(hand_analysis, "elo", config=item)
        assert row["elo"].value == pytest.approx(rating)
        assert (row["elo"].low, row["elo"].high) == pytest.approx((low, high))
    ranks = [r["config"] for r in hand_analysis.table("elo").rows]
    assert ranks == [ref.items[i] for i in np.argsort(-ref.rating)]
    decisive = matches = 0
    for t, left, right, ch in VOTES:
        ml, mr = hand.expected[(left, t)][-1], hand.expected[(right, t)][-1]
        if ch == "tie" or not (np.isfinite(ml) and np.isfinite(mr)):
            continue
        decisive += 1
        matches += (ml > mr and ch == "A") or (ml < mr and ch == "B")
    overall = _row(hand_analysis, "direction", judge="j1", bucket="all")
    assert (overall["decisive"], overall["matches"]) == (decisive, matches)
    low, high = stats.wilson_interval(matches, decisive)
    assert (overall["share"].low, overall["share"].high) == pytest.approx((low, high))


def test_report_cli_prints_tables_and_exports(
    hand: HandRun, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(console, "width", 220)
    root = str(hand.store.root)
    assert cli(["report", root, "--judge", "j1", "--resamples", "500", "-q"]) == 0
    text = capsys.readouterr().out
    for title in (
        "Configuration means (judge j1)",
        "Structural audit",
        "Workflow economics",
        "Paired effects",
        "Judge repeatability",
        "Cross-judge rank agreement",
        "Human preference Elo",
        "Judge vs human direction agreement",
        "Editability weight sensitivity",
    ):
        assert title in text
    assert "* best in column" in text
    assert cli(["report", root, "--json", "--resamples", "500"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["judge"] == "j1"  # the judge with the most scored cells
    assert document["options"]["buckets"][-1] is None  # strict JSON: no Infinity
    assert {"means", "effects", "elo", "direction", "weights", "task_scores"} <= set(
        document["tables"]
    )
    means = document["tables"]["means"]
    assert {"estimate", "low", "high"} == set(means["rows"][0]["total"])
    latex, figures = tmp_path / "tex", tmp_path / "fig"
    assert (
        cli(
            [
                "report",
                root,
                "--latex",
                str(latex),
                "--figures",
                str(figures),
                "-q",
                "--resamples",
                "500",
            ]
        )
        == 0
    )
    capsys.readouterr()
    tex = (latex / "tables" / "means.tex").read_text()
    assert "\\toprule" in tex and "\\bottomrule" in tex and "m@h1/direct" in tex
    assert (latex / "report.tex").read_text().count("\\input{tables/") >= 9
    assert (figures / "effects_forest.png").stat().st_size > 0
    assert (figures / "effects_forest.svg").read_text().lstrip().startswith("<?xml")


def test_report_cli_errors(hand: HandRun, tmp_path: Path, capsys) -> None:
    assert cli(["report", str(hand.store.root), "--judge", "nope", "-q"]) == 2
    assert "choose one of: j1, j2" in capsys.readouterr().err
    assert cli(["report", str(tmp_path / "absent")]) == 2
    assert cli(["report", str(hand.store.root), "--reporter", "no-such-reporter"]) == 2
    capsys.readouterr()
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    assert cli(["report", str(hand.store.root), "--latex", str(blocker), "-q", "--json"]) == 1
    said = " ".join(capsys.readouterr().err.split())
    assert "cannot write the latex report" in said and str(blocker) in said
    assert "Traceback" not in said


def test_small_runs_say_too_little_data(
    tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(console, "width", 220)
    spec = SyntheticSpec(
        configs=[A],
        quality=[[0.5] * 5],
        tasks=3,
        judges=("solo",),
        repeats=1,
        votes=0,
        images=False,
        gate_failures=0.0,
        failed_judgments=0.0,
    )
    store = synthetic_run(tmp_path / "small", spec)
    analysis = analyse(store, Options(resamples=200))
    for key in (
        "effects",
        "repeatability",
        "judge_agreement",
        "elo",
        "direction",
        "weights",
        "weight_ranking",
    ):
        table = analysis.table(key)
        assert table is not None and table.insufficient, key
    means = analysis.table("means")
    assert means is not None and means.rows[0]["total"].low is None  # 3 tasks: no interval
    assert cli(["report", str(store.root), "-q"]) == 0
    text = capsys.readouterr().out
    assert text.count("too little data") >= 6
    empty = RunStore.create(tmp_path / "empty")
    assert cli(["report", str(empty.root), "-q"]) == 0
    assert "no attempts in this run yet" in capsys.readouterr().out


def test_judgments_of_older_inputs_are_not_further_repeats(tmp_path: Path) -> None:
    spec = SyntheticSpec(
        configs=[A, B],
        quality=[[0.5] * 5, [0.6] * 5],
        tasks=6,
        judges=("solo",),
        repeats=1,
        votes=0,
        images=False,
        gate_failures=0.0,
        failed_judgments=0.0,
    )
    store = synthetic_run(tmp_path / "run", spec)
    before = analyse(store, Options(resamples=200))
    # The same judge and repeat, a day earlier, on another rendering: stored under its own key.
    stale = [
        j.model_copy(
            update={
                "inputs_sha256": "an older rendering",
                "created_at": j.created_at - timedelta(days=1),
                "scores": tuple(s.model_copy(update={"score": 0.0}) for s in j.scores),
                "total": 0.0,
            }
        )
        for j in store.query(Judgment)
    ]
    assert store.put_many(stale) == len(stale)
    after = analyse(store, Options(resamples=200))
    assert after.table("means").rows == before.table("means").rows
    assert {r["repeats"] for r in after.table("task_scores").rows} == {1}


def test_synthetic_run_with_clusters_matches_brute_force(tmp_path: Path) -> None:
    configs = [
        Configuration(model="m", harness=h, workflow=w)
        for h in ("h1", "h2")
        for w in ("direct", "specialized")
    ]
    quality = [
        [0.6, 0.5, 0.5, 0.4, 0.5],
        [0.6, 0.6, 0.5, 0.7, 0.5],
        [0.5, 0.4, 0.5, 0.3, 0.6],
        [0.5, 0.5, 0.4, 0.6, 0.6],
    ]
    spec = SyntheticSpec(
        configs=configs, quality=quality, tasks=16, tasks_per_figure=2, votes=80, images=False
    )
    store = synthetic_run(tmp_path / "run", spec)
    analysis = analyse(store, Options(judge="judge-a", resamples=1000, elo_resamples=200))
    # Brute force from the records: latest success, final gate, mean of ok repeats.
    attempts = {}
    for a in store.query(Attempt):
        if a.status == AttemptStatus.SUCCEEDED:
            attempts[(a.task_id, a.config_id)] = a  # key order: the latest try wins
    gate = {m.artifact_sha256: m.value for m in store.query(MetricValue, metric="gate")}
    judged: dict[str, list[float]] = {}
    for j in store.query(Judgment):
        if j.judge == "judge-a" and j.status == JudgmentStatus.OK:
            judged.setdefault(j.artifact_sha256, []).append(j.total or 0.0)
    tasks = {t.id: t.cluster_id for t in store.query(Task)}
    for config in configs:
        values, clusters = [], []
        for task_id in sorted(tasks):
            attempt = attempts.get((task_id, config.id))
            if attempt is None or gate.get(attempt.slide_sha256) == 0.0:
                values.append(0.0)
            elif attempt.slide_sha256 in judged:
                values.append(float(np.mean(judged[attempt.slide_sha256])))
            else:
                continue
            clusters.append(tasks[task_id])
        row = _row(analysis, "means", config=config.id)
        assert row["total"].value == pytest.approx(np.mean(values))
        ref = stats.cluster_bootstrap_ci(values, clusters, resamples=1000, seed=0)
        assert isinstance(ref, stats.Interval)
        assert (row["total"].low, row["total"].high) == pytest.approx((ref.low, ref.high))
    assert analysis.table("elo").insufficient is None
    assert len(analysis.table("effects").rows) == 4  # two workflow pairs, two harness pairs
