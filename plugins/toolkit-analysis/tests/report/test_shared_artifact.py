"""Two tasks that receive the same artifact keep their own scores.

A baseline can hand in the very same file for two tasks (the `blank` program of one language;
any agent can). Its judgments are stored per (artifact, inputs) and its metric values per
(artifact, reference), so each task's cell must read its own: before, the analysis keyed both by
artifact alone, and both tasks got whichever judgment and value came first.
"""

from __future__ import annotations

import numpy as np
from refig.judging import inputs_key
from refig.models import (
    Asset,
    Attempt,
    AttemptStatus,
    AxisScore,
    Configuration,
    GateResult,
    Inspection,
    Judgment,
    JudgmentStatus,
    MetricValue,
    Page,
    Render,
    Task,
)
from refig.store import RunStore
from refig_toolkit_analysis.analysis.rundata import RunData
from refig_toolkit_analysis.analysis.scores import judge_labels, judge_scores

CONFIG = Configuration(model="none", harness="blank", workflow="direct")
TOTALS = {"t0": 30.0, "t1": 42.0}
SIMILARITY = {"t0": 0.25, "t1": 0.75}


def test_each_task_reads_its_own_judgment_and_metric_values(tmp_path) -> None:
    store = RunStore.create(tmp_path / "run")
    slide = store.objects.put_bytes(b"the one slide both tasks got")
    page = store.objects.put_bytes(b"its rendering")
    records: list = [CONFIG, Inspection(artifact_sha256=slide, inspector="i",
                                        gate=GateResult(passed=True)),
                     Render(artifact_sha256=slide, renderer="r", settings="s",
                            pages=(Page(index=0, png_sha256=page, width_px=8, height_px=8),))]
    for task_id, total in TOTALS.items():
        figure = store.objects.put_bytes(f"figure of {task_id}".encode())
        records += [
            Task(id=task_id, family="figure-to-slide",
                 inputs={"figure": Asset(path=f"{task_id}.png", sha256=figure)}),
            Attempt(task_id=task_id, config_id=CONFIG.id, status=AttemptStatus.SUCCEEDED,
                    outputs={"slide": slide}),
            Judgment(artifact_sha256=slide, judge="j", judge_key="k", rubric_sha256="r",
                     rubric_version="1", inputs_sha256=inputs_key(page, figure), repeat=0,
                     status=JudgmentStatus.OK, total=total,
                     scores=(AxisScore(axis="a", score=total, max_score=100),)),
            # the figure-to-slide family measures against the figure's hash
            MetricValue(artifact_sha256=slide, metric="image", name="ssim",
                        value=SIMILARITY[task_id], reference_sha256=figure),
        ]
    records.append(MetricValue(artifact_sha256=slide, metric="gate", name="passed", value=1.0))
    store.put_many(records)

    data = RunData.load(store)
    [judged] = judge_labels(data).values()
    assert len(judged) == 2  # one per task's inputs, not one per artifact
    scores = judge_scores(data, "j", judged)
    c = scores.config_index(CONFIG.id)
    for task_id, total in TOTALS.items():
        assert scores.total[c, scores.task_index(task_id)] == total
        outcome = data.outcomes[(task_id, CONFIG.id)]
        assert outcome.metric("image", "ssim") == SIMILARITY[task_id]
        assert outcome.metric("gate", "passed") == 1.0  # measured against no reference: for both
        assert not outcome.gated
    assert np.array_equal(scores.repeats[c, :, 0], [30.0, 42.0])
