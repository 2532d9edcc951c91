"""Registers the `image` metric; the work lives in :mod:`.metric`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from refig import hookimpl
from refig.records import MetricRecord, TaskKind


def _factory(**options: Any) -> Any:
    from refig_metric_image.metric import ImageSimilarity

    return ImageSimilarity(**options)


@hookimpl
def refig_metrics() -> Iterator[MetricRecord]:
    yield MetricRecord(
        name="image",
        description="SSIM, PSNR, CIEDE2000 (LPIPS optional) of the rendering against the source.",
        factory=_factory,
        task_kinds=frozenset({TaskKind.FIGURE_TO_SLIDE, TaskKind.FIGURE_TO_CODE}),
    )
