"""Registers the ``raster-paste`` and ``cv`` baselines; OpenCV and OCR load only in their runs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from refig.plugin import HarnessRecord, hookimpl


def _raster_paste(**options: Any) -> Any:
    from refig_harness_baseline.harness import BaselineHarness

    return BaselineHarness("raster_paste", **options)


def _cv(**options: Any) -> Any:
    from refig_harness_baseline.harness import BaselineHarness

    return BaselineHarness("cv", **options)


@hookimpl
def refig_harnesses() -> Iterator[HarnessRecord]:
    kinds = frozenset({"figure-to-slide"})
    yield HarnessRecord(
        name="raster-paste",
        description="Pastes the source image over the whole slide: the cheat the flattening "
        "cap exists to catch.",
        factory=_raster_paste,
        families=kinds,
        needs_model=False,
        runs_agent=False,  # refig's own baseline code, no agent
    )
    yield HarnessRecord(
        name="cv",
        description="Classical vision (OpenCV contours, OCR, line and arrow detection) writing "
        "native text, shapes and bound connectors: the floor any agent should beat.",
        factory=_cv,
        families=kinds,
        needs_model=False,
        runs_agent=False,
    )
