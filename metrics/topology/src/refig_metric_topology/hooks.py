"""Registers the `topology` metric; the matching lives in :mod:`.topology`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from refig.plugin import MetricRecord, hookimpl


def _factory(**options: Any) -> Any:
    from refig_metric_topology.metric import TopologyMetric

    return TopologyMetric(**options)


@hookimpl
def refig_metrics() -> Iterator[MetricRecord]:
    yield MetricRecord(
        name="topology",
        description="Node recall, directed edge recall/precision, reversed arrows and style "
        "agreement against the task's figure annotation (when it has one).",
        factory=_factory,
        families=frozenset({"figure-to-slide"}),
    )
