"""Registers the `edit-probes` metric; the probes live in :mod:`.slides` (and :mod:`.metric`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from refig.plugin import MetricRecord, hookimpl

FIGURE_TO_SLIDE = "figure-to-slide"
DECK_EDIT = "deck-edit"
FIGURE_TO_CODE = "figure-to-code"


def _factory(**options: Any) -> Any:
    from refig_metric_edit_probes.metric import EditProbes

    return EditProbes(**options)


@hookimpl
def refig_metrics() -> Iterator[MetricRecord]:
    yield MetricRecord(
        name="edit-probes",
        description="Does a user's next edits to the artifact (slides: move, relabel, delete, "
        "recolour; programs: a string, a data value, a colour), renders or runs them and "
        "checks each did what it should.",
        factory=_factory,
        families=frozenset({FIGURE_TO_SLIDE, DECK_EDIT, FIGURE_TO_CODE}),
        default=False,  # a five-page probe deck an artifact: run when named (-m edit-probes)
    )
