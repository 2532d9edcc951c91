"""``deck-diff``: the structural diff's deterministic numbers for one edited deck."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from refig.plugin import MetricValue

from refig_family_deck_edit.context import ContextError, build_context

VERSION = "1"
NAMES = ("edit_recall", "edit_precision", "collateral", "requested", "done", "oracle_if",
         "selected_slides")


def reference_of(artifact: Any) -> str | None:
    """Values are measured against the task's original and target together."""
    from refig_family_deck_edit.family import reference_key

    return reference_key(artifact.task) if artifact.task is not None else None


class DeckDiffMetric:
    """Edit recall, precision and collateral count; the spec oracle's IF on generated tasks."""

    version = VERSION

    def compute(self, artifact: Any) -> Iterator[MetricValue]:
        reference = reference_of(artifact)

        def value(name: str, number: float | None, **detail: Any) -> MetricValue:
            return MetricValue(artifact_sha256=artifact.sha256, metric="deck", name=name,
                               value=number, reference_sha256=reference, version=VERSION,
                               detail=detail)

        try:
            context = build_context(artifact.structure, artifact.references)
        except (ContextError, OSError, ValueError) as exc:
            for name in NAMES:
                yield value(name, None, error=str(exc))
            return
        c = context.comparison
        yield value("edit_recall", c.recall,
                    achieved=[x.line() for x in c.achieved][:50],
                    missed=[x.line() for x in c.missed][:50])
        yield value("edit_precision", c.precision)
        yield value("collateral", float(c.collateral_count),
                    changes=[x.line() for x in c.collateral][:50])
        yield value("requested", float(len(c.requested)))
        yield value("done", float(len(c.done)))
        verdict = context.oracle
        yield value("oracle_if", None if verdict is None else float(verdict.score),
                    **({} if verdict is None else {"recall": verdict.recall,
                                                   "missed": [list(k) for k in verdict.missed]}))
        selection = context.selection
        yield value("selected_slides", float(len(selection.slides)) if selection else None,
                    slides=[s.original for s in selection.slides] if selection else [])
