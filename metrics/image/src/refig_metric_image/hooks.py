"""Registers the `image` metric; the work lives in :mod:`.metric`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from refig.plugin import MetricRecord, hookimpl


def _checks() -> Iterator[Any]:
    """LPIPS reads its weights from a local file put there at install time (never downloaded
    while scoring)."""
    from refig.plugin import Check, Status, docs

    from refig_metric_image.lpips_weights import (
        CHECKPOINT,
        WeightsError,
        alexnet_lpips,
        weights_dir,
    )

    path = weights_dir() / CHECKPOINT
    try:
        alexnet_lpips(path)
    except WeightsError as exc:
        yield Check(
            "LPIPS",
            Status.WARN,
            f"the lpips values are null: {exc}",
            f"run refig-lpips-weights (see {docs('metrics.md')}, LPIPS)",
        )
        return
    yield Check("LPIPS", Status.OK, f"weights in {path}")


def _factory(**options: Any) -> Any:
    from refig_metric_image.metric import ImageSimilarity

    return ImageSimilarity(**options)


@hookimpl
def refig_metrics() -> Iterator[MetricRecord]:
    yield MetricRecord(
        name="image",
        description="SSIM, PSNR, CIEDE2000 (LPIPS on request) of the rendering against the source.",
        factory=_factory,
        families=frozenset({"figure-to-slide"}),
        checks=_checks,
    )
