"""Writing one figure-to-code task, and the tiers of a suite's tasks, the same way for every
builder.

A task's inputs: ``figure`` (visible), ``reference_code`` (hidden) and each data file as the
visible role ``data/<name>`` (copied beside the program under ``<name>``). Its params:
``language``, ``width``, ``height``, and ``seed``/``packages``/``auxiliary_info`` when known;
its meta: ``category``, ``tier`` (with ``tier_score``) and provenance.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image
from refig.plugin import Asset, SuiteWriter
from refig_metric_code.tiers import Complexity, assign_tiers, code_features, visual_features

from refig_family_figure_to_code.languages import Language, spec
from refig_family_figure_to_code.roles import DATA_PREFIX, FIGURE, REFERENCE_CODE


@dataclass
class TaskDraft:
    """One task before it is written: its files as bytes and what is known about it."""

    id: str
    language: Language
    figure: bytes
    figure_name: str
    code: str
    category: str
    data: Mapping[str, bytes] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)
    cluster: str | None = None

    def size(self) -> tuple[int, int]:
        """The figure's pixel size."""
        with Image.open(io.BytesIO(self.figure)) as image:
            return image.size


def _complexity(draft: TaskDraft, scratch: Path) -> Complexity:
    figure = scratch / f"{draft.id}-{draft.figure_name}"
    figure.write_bytes(draft.figure)
    try:
        return Complexity(visual_features(figure), code_features(draft.code, draft.language))
    finally:
        figure.unlink(missing_ok=True)


def set_tiers(drafts: list[TaskDraft], scratch: Path) -> None:
    """Tier every draft within its language (code lengths differ widely between languages)."""
    for language in Language:
        group = [d for d in drafts if d.language is language]
        for draft, (tier, score) in zip(group, assign_tiers(
                [_complexity(d, scratch) for d in group]), strict=True):
            draft.meta.setdefault("tier", tier)
            draft.meta["tier_score"] = round(score, 4)


def write_task(writer: SuiteWriter, draft: TaskDraft) -> None:
    """Write the draft's files under ``assets/<id>/`` and add the task."""
    base = f"assets/{draft.id}"
    inputs: dict[str, Asset] = {
        FIGURE: writer.asset(f"{base}/{draft.figure_name}", draft.figure),
        REFERENCE_CODE: writer.asset(f"{base}/reference/{spec(draft.language).program_file}",
                                       draft.code.encode("utf-8"), visible=False),
    }
    for name, data in sorted(draft.data.items()):
        inputs[DATA_PREFIX + name] = writer.asset(f"{base}/data/{name}", data)
    width, height = draft.size()
    # No seed unless the source gives one: a release program without one seeds itself or not.
    params = {"language": draft.language.value, "width": width, "height": height,
              **draft.params}
    writer.add_task(draft.id, inputs, cluster=draft.cluster, params=params,
                    meta={"category": draft.category, **draft.meta})
