"""Registers the `text` metric; the work lives in :mod:`.metric` (OCR loads only when it runs)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from refig import hookimpl
from refig.records import MetricRecord, TaskKind


def _factory(**options: Any) -> Any:
    from refig_metric_text.metric import TextRecall

    return TextRecall(**options)


@hookimpl
def refig_metrics() -> Iterator[MetricRecord]:
    yield MetricRecord(
        name="text",
        description="Recall and precision of the slide's native text against OCR of the source.",
        factory=_factory,
        task_kinds=frozenset({TaskKind.FIGURE_TO_SLIDE}),
    )
