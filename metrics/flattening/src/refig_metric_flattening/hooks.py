"""Registers the `flattening` metric; the work lives in :mod:`.metric`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from refig.plugin import MetricRecord, hookimpl


def _factory(**options: Any) -> Any:
    from refig_metric_flattening.metric import Flattening

    return Flattening(**options)


@hookimpl
def refig_metrics() -> Iterator[MetricRecord]:
    yield MetricRecord(
        name="flattening",
        description="Raster share of the slide and a pasted source figure, however hidden.",
        factory=_factory,
        families=frozenset({"figure-to-slide"}),
    )
