"""The hand-built run the report tests recompute by hand: three configurations, six tasks, two
judges, repeats, gate failures and human votes, each value written record by record."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
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
    Preference,
    Task,
)
from refig.store import RunStore
from refig_toolkit_analysis.analysis import Options, analyse
from refig_toolkit_pptx import ObjectTree
from refig_toolkit_testing.synthetic import RUBRIC

A = Configuration(model="m", harness="h1", workflow="direct")
B = Configuration(model="m", harness="h1", workflow="specialized")
C = Configuration(model="m", harness="h2", workflow="direct")
CONFIGS = (A, B, C)
TASKS = [f"t{i}" for i in range(6)]
TOP = np.array([m for _, m in RUBRIC])
AXES = [a for a, _ in RUBRIC]


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


def _points(config: int, task: int) -> np.ndarray:
    """Judge j1's repeat-0 points: a known pattern per configuration and task."""
    base = np.array([10.0, 12.0, 8.0, 10.0, 5.0])
    base[1] += task  # semantic grows with the task
    base[3] += 4 * config - 2 * (config == 2) * task  # editability differs by configuration
    base[0] += config
    return np.clip(base, 0, TOP)


class HandRun:
    """Writes the run and keeps the expected per-cell values (NaN unscored, zeros gated)."""

    configs = CONFIGS
    tasks = TASKS
    top = TOP
    axes = AXES
    votes = VOTES

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
            outputs={"slide": slide} if slide else {},
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
        if (c, t) == (2, 2):  # every attempt failed (the model's timeout): scored 0
            records += [self._attempt(c, t, 0, None, ok=False, turns=turns, cost=cost)]
            self.gates[(c, t)] = "timeout"
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



@pytest.fixture
def table_row():
    """``table_row(analysis, key, **match)``: the one row of a table whose cells match."""
    return _row


def _row(analysis, key: str, **match: Any) -> dict:
    table = analysis.table(key)
    assert table is not None, key
    found = [r for r in table.rows if all(r.get(k) == v for k, v in match.items())]
    assert len(found) == 1, (key, match, table.rows)
    return found[0]

