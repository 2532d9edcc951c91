"""A run store with known structure, written record by record, for tests and benchmarks of reports.

Every number comes from a seeded generator and a stated model: each configuration has a true
quality per rubric axis, each task a difficulty, each configuration x task a deviation
(``task_spread``, 0 by default), each judge repeat adds noise; human votes follow Bradley-Terry on
the configurations' true totals. Images are small PNGs drawn with Pillow, stored
in the run's object store like real sources and renders.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
from PIL import Image, ImageDraw
from refig.models import Configuration, Inspection, Page, Preference
from refig.plugin import (
    Asset,
    Attempt,
    AttemptStatus,
    AxisScore,
    ErrorInfo,
    GateReason,
    GateResult,
    Judgment,
    JudgmentStatus,
    MetricValue,
    Render,
    Task,
    Usage,
)
from refig.store import RunStore
from refig_toolkit_pptx.objects import ObjectKind, ObjectTree, Rect, SlideObject

FIGURE_TO_SLIDE = "figure-to-slide"

#: The paper's rubric: axis and maximum points (total 100).
RUBRIC: tuple[tuple[str, float], ...] = (
    ("text", 20.0),
    ("semantic", 30.0),
    ("layout", 15.0),
    ("editability", 25.0),
    ("visual", 10.0),
)


@dataclass
class SyntheticSpec:
    """What to generate; ``quality[config]`` is a per-axis share of the maximum in [0, 1]."""

    configs: Sequence[Configuration]
    quality: Sequence[Sequence[float]]
    tasks: int = 12
    tasks_per_figure: int = 1
    judges: Sequence[str] = ("judge-a", "judge-b")
    repeats: int = 3
    noise: float = 0.05
    gate_failures: float = 0.1
    failed_judgments: float = 0.03
    votes: int = 60
    seed: int = 0
    images: bool = True
    image_size: tuple[int, int] = (96, 64)
    rubric: Sequence[tuple[str, float]] = field(default_factory=lambda: RUBRIC)
    #: SD (a share of each axis's maximum) of a deviation drawn once per configuration x task and
    #: added to every axis of every repeat: what makes paired differences vary between tasks.
    task_spread: float = 0.0
    #: Recorded cost of each judgment (None: not recorded, as for a judge that calls no model).
    judgment_cost: float | None = None


def _png(rng: np.random.Generator, size: tuple[int, int], base: Image.Image | None = None) -> bytes:
    image = base.copy() if base is not None else Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    w, h = size
    for _ in range(3):
        x0, y0 = int(rng.integers(0, w - 20)), int(rng.integers(0, h - 16))
        colour = tuple(int(v) for v in rng.integers(40, 220, size=3))
        draw.rectangle((x0, y0, x0 + 18, y0 + 12), outline=colour, width=2)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def _judgment(
    slide: str, judge: str, repeat: int, scores: tuple[AxisScore, ...] | None,
    cost: float | None = None,
) -> Judgment:
    """A judgment of ``slide``: scored (total their sum), or failed when ``scores`` is None."""
    identity: dict[str, Any] = {
        "cost_usd": cost,
        "artifact_sha256": slide,
        "judge": judge,
        "judge_key": f"key-{judge}",
        "rubric_sha256": "0" * 64,
        "rubric_version": "1",
        "repeat": repeat,
    }
    if scores is None:
        return Judgment(
            **identity, status=JudgmentStatus.FAILED, error=ErrorInfo(kind="invalid_answer")
        )
    total = float(sum(s.score for s in scores))
    return Judgment(**identity, status=JudgmentStatus.OK, total=total, scores=scores)


def synthetic_run(root: Path, spec: SyntheticSpec) -> RunStore:
    """Write a whole run (tasks, attempts, inspections, renders, metrics, judgments, votes)."""
    rng = np.random.default_rng(spec.seed)
    store = RunStore.create(root)
    axes = [a for a, _ in spec.rubric]
    top = np.array([m for _, m in spec.rubric])
    quality = np.asarray(spec.quality, dtype=np.float64)
    difficulty = rng.normal(0, 0.08, size=spec.tasks)
    # its own stream, so a run without a spread draws exactly the numbers it always drew
    spread = np.random.default_rng([spec.seed, 1]).normal(
        0, spec.task_spread, size=(len(spec.configs), spec.tasks))
    records: list = [*spec.configs]
    tasks = []
    sources: list[Image.Image | None] = []
    for t in range(spec.tasks):
        source_png = _png(rng, spec.image_size) if spec.images else f"source {t}".encode()
        sha = store.objects.put_bytes(source_png)
        sources.append(Image.open(io.BytesIO(source_png)).convert("RGB") if spec.images else None)
        tasks.append(
            Task(
                id=f"task-{t:03d}",
                family=FIGURE_TO_SLIDE,
                inputs={"figure": Asset(path=f"assets/task-{t:03d}.png", sha256=sha)},
                cluster=f"fig-{t // spec.tasks_per_figure:03d}",
            )
        )
    records += tasks
    for c, config in enumerate(spec.configs):
        for t, task in enumerate(tasks):
            gate_fails = rng.random() < spec.gate_failures
            attempt_fails = gate_fails and rng.random() < 0.5
            slide = store.objects.put_bytes(f"slide {config.id} {task.id}".encode())
            # A failed first try, then the try that counts: the report must use the latest success.
            records.append(
                Attempt(
                    task_id=task.id,
                    config_id=config.id,
                    try_index=0,
                    status=AttemptStatus.FAILED,
                    error=ErrorInfo(kind="timeout", retryable=True),
                    wall_seconds=5.0,
                    cost_usd=0.01,
                )
            )
            records.append(
                Attempt(
                    task_id=task.id,
                    config_id=config.id,
                    try_index=1,
                    status=AttemptStatus.FAILED if attempt_fails else AttemptStatus.SUCCEEDED,
                    error=ErrorInfo(kind="api_error") if attempt_fails else None,
                    outputs={} if attempt_fails else {"slide": slide},
                    turns=int(rng.integers(3, 30)),
                    usage=Usage(input_tokens=1000, output_tokens=int(rng.integers(200, 4000))),
                    cost_usd=float(np.round(rng.uniform(0.05, 0.5), 4)),
                    wall_seconds=float(np.round(rng.uniform(20, 300), 1)),
                )
            )
            if attempt_fails:
                continue
            # Half the gate failures are structural (corrupt), half happen at rendering.
            render_fails = gate_fails and rng.random() < 0.5
            reason = GateReason.RENDER_FAILED if render_fails else GateReason.CORRUPT
            connectors = int(rng.poisson(4 * quality[c, axes.index("semantic")]))
            objects = [
                SlideObject(
                    id=k + 2,
                    kind=ObjectKind.AUTO_SHAPE,
                    text=f"box {k}",
                    rect=Rect(x=k * 100, y=0, w=90, h=50),
                )
                for k in range(3)
            ]
            objects += [
                SlideObject(id=10 + k, kind=ObjectKind.CONNECTOR) for k in range(connectors)
            ]
            structural = gate_fails and not render_fails
            records.append(
                Inspection(
                    artifact_sha256=slide,
                    inspector="synthetic",
                    gate=GateResult(
                        passed=not structural,
                        reason=reason if structural else None,
                        slides=None if structural else 1,
                    ),
                    structure=None
                    if structural
                    else ObjectTree(
                        slide_width=9144000, slide_height=5143500, objects=tuple(objects)
                    ).model_dump(mode="json"),
                )
            )
            # The final gate, as `refig evaluate` stores it.
            records.append(
                MetricValue(
                    artifact_sha256=slide,
                    metric="gate",
                    name="passed",
                    value=0.0 if gate_fails else 1.0,
                    detail={"reason": reason.value if gate_fails else None, "detail": ""},
                )
            )
            if gate_fails:
                continue
            if spec.images:
                png = store.objects.put_bytes(_png(rng, spec.image_size, sources[t]))
                records.append(
                    Render(
                        artifact_sha256=slide,
                        renderer="synthetic",
                        settings="96dpi",
                        pages=(
                            Page(index=0, png_sha256=png, width_px=spec.image_size[0],
                                 height_px=spec.image_size[1]),
                        ),
                    )
                )
            flattened = float(quality[c, axes.index("editability")] < 0.2)
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
                MetricValue(
                    artifact_sha256=slide, metric="flattening", name="flattened", value=flattened
                ),
            ]
            for j, judge in enumerate(spec.judges):
                bias = 0.03 * j
                for r in range(spec.repeats):
                    if rng.random() < spec.failed_judgments:
                        records.append(_judgment(slide, judge, r, None, spec.judgment_cost))
                        continue
                    share = (quality[c] - difficulty[t] + spread[c, t] - bias
                             + rng.normal(0, spec.noise, len(axes)))
                    points = np.round(np.clip(share, 0, 1) * top)
                    scores = tuple(
                        AxisScore(
                            axis=a,
                            score=float(p),
                            max_score=float(m),
                            rationale=f"{a} of {config.id} on {task.id}, try {r}",
                        )
                        for a, p, m in zip(axes, points, top, strict=True)
                    )
                    records.append(_judgment(slide, judge, r, scores, spec.judgment_cost))
    strength = (quality * top).sum(axis=1) / 10.0
    for v in range(spec.votes):
        i, k = rng.choice(len(spec.configs), size=2, replace=False)
        t = int(rng.integers(0, spec.tasks))
        p = 1.0 / (1.0 + np.exp(-(strength[i] - strength[k])))
        u = rng.random()
        choice: Literal["A", "B", "tie"] = "tie" if u < 0.1 else ("A" if rng.random() < p else "B")
        records.append(
            Preference(
                id=f"vote-{v:04d}",
                annotator=f"ann-{v % 3}",
                task_id=tasks[t].id,
                left=spec.configs[i].id,
                right=spec.configs[k].id,
                choice=choice,
            )
        )
    store.put_many(records)
    return store
