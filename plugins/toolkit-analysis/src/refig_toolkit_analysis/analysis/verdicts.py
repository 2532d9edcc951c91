"""Each configuration's standing under one judge, as ``refig demo`` prints it (through the
``verdicts`` reporter): its mean total and editability, and how many of its attempts were
capped."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np
from refig.models import Judgment, JudgmentStatus
from refig.store import RunStore

from refig_toolkit_analysis.analysis.rundata import RunData
from refig_toolkit_analysis.analysis.scores import judge_labels, judge_scores


def verdicts(store: RunStore, judge: str | None = None) -> dict[str, list[dict[str, Any]]]:
    """Per judge label (only ``judge`` when given), each configuration's mean total and
    editability (NaN when the rubric has none), and its caps: of its judged attempts, how many
    were capped (attempts, not artifacts: identical outputs of two tasks are one artifact, and
    count twice)."""
    data = RunData.load(store)
    labels = judge_labels(data)
    return {label: _verdicts(data, label, labels.get(label, []))
            for label in ([judge] if judge is not None else labels)}


def _verdicts(data: RunData, judge: str, judgments: list[Judgment]) -> list[dict[str, Any]]:
    scores = judge_scores(data, judge, judgments)
    editability = scores.axis_index("edit")
    ok: dict[str, list[Judgment]] = defaultdict(list)
    for j in judgments:
        if j.status is JudgmentStatus.OK:
            ok[j.artifact_sha256].append(j)
    found = []
    for c, config_id in enumerate(scores.configs):
        judged = [ok[o.artifact] for (_, cid), o in data.outcomes.items()
                  if cid == config_id and o.artifact and ok.get(o.artifact)]
        found.append({
            "config_id": config_id,
            "total": float(np.nanmean(scores.total[c])),
            "editability": float(np.nanmean(scores.axis_points[c, :, editability]))
            if editability is not None else float("nan"),
            "capped": sum(any(j.capped for j in js) for js in judged),
            "judged": len(judged),
        })
    return found
