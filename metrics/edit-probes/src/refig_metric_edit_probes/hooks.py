"""Registers the `edit-probes` metric; the probes live in :mod:`.slides` (and :mod:`.metric`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from refig.plugin import DECK_EDIT, FIGURE_TO_SLIDE, MetricRecord, hookimpl


def _factory(**options: Any) -> Any:
    from refig_metric_edit_probes.metric import EditProbes

    return EditProbes(**options)


@hookimpl
def refig_metrics() -> Iterator[MetricRecord]:
    yield MetricRecord(
        name="edit-probes",
        description="Applies a user's next edits (move, relabel, delete, recolour) to the "
        "artifact, renders them in one conversion and checks each did what it should.",
        factory=_factory,
        families=frozenset({FIGURE_TO_SLIDE, DECK_EDIT}),
        default=False,  # one more render an artifact: run when named (-m edit-probes)
    )
