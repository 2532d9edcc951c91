"""Registers the offline `metrics` judge."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from refig.plugin import JudgeRecord, hookimpl


def _factory(argument: str | None = None, **options: Any) -> Any:
    from refig_judge_metrics.proxy import MetricsJudge

    return MetricsJudge(**options)


@hookimpl
def refig_judges() -> Iterator[JudgeRecord]:
    yield JudgeRecord(
        name="metrics",
        description="Offline proxy: the rubric filled from deterministic metrics (no model, "
        "no network); labelled proxy.",
        factory=_factory,
        families=frozenset({"figure-to-slide"}),
    )
