"""``deck-diff``: the structural diff's deterministic numbers for one edited deck."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from refig.plugin import Metric, MetricValue, ValueMaker

from refig_family_deck_edit.context import ContextError, artifact_context
from refig_family_deck_edit.references import RenderError

METRIC = "deck-diff"
VERSION = "2"
NAMES = ("edit_recall", "edit_precision", "collateral", "requested", "done", "oracle_if",
         "selected_slides")
#: Change lines kept in a value's detail (for the task page), per list.
MAX_LINES = 50


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class DeckDiffMetric(Metric):
    """Edit recall, precision and collateral count; the spec oracle's IF on generated tasks;
    the slides chosen for the VQ judge."""

    version = VERSION

    def compute(self, artifact: Any) -> Iterator[MetricValue]:
        from refig_family_deck_edit.family import reference_key

        reference = reference_key(artifact.task) if artifact.task is not None else None
        make = ValueMaker(artifact, METRIC, VERSION, reference)
        try:
            context = artifact_context(artifact)
        except (ContextError, RenderError, OSError, ValueError) as exc:
            yield from make.missing(NAMES, str(exc))
            return
        c = context.comparison
        yield make.value("edit_recall", c.recall,
                         achieved=[x.line() for x in c.achieved][:MAX_LINES],
                         missed=[x.line() for x in c.missed][:MAX_LINES])
        yield make.value("edit_precision", c.precision)
        yield make.value("collateral", c.collateral_count,
                         changes=[x.line() for x in c.collateral][:MAX_LINES])
        yield make.value("requested", len(c.requested))
        yield make.value("done", len(c.done))
        verdict = context.oracle
        yield make.value("oracle_if", None if verdict is None else verdict.score,
                         recall=None if verdict is None else verdict.recall,
                         missed=None if verdict is None else [list(k) for k in verdict.missed])
        selection = context.selection
        yield make.value(
            "selected_slides", len(selection.slides) if selection else None,
            slides=[{"original": s.original, "target": s.target, "prediction": s.prediction,
                     "reasons": ", ".join(s.reasons), "ssim_target": s.ssim_target,
                     "ssim_prediction": s.ssim_prediction}
                    for s in selection.slides] if selection else [],
            pages={role: [_sha256(p) for p in pages] for role, pages in context.pages.items()},
            hidden={role: [s.hidden for s in deck.slides] for role, deck in (
                ("original", context.original), ("target", context.target),
                ("prediction", context.prediction))})
