"""Registers the `connector-audit` metric; the audit itself lives in :mod:`.audit`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from refig.plugin import MetricRecord, hookimpl


def _factory(**options: Any) -> Any:
    from refig_metric_connector_audit.audit import ConnectorAudit

    return ConnectorAudit(**options)


@hookimpl
def refig_metrics() -> Iterator[MetricRecord]:
    yield MetricRecord(
        name="connector-audit",
        description="Native connectors, bound ends, arrow heads and free lines of the slide.",
        factory=_factory,
        families=frozenset({"figure-to-slide"}),
    )
