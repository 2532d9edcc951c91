"""Registers the `image` metric; the work lives in :mod:`.metric`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from refig.plugin import MetricRecord, hookimpl


def _checks() -> Iterator[Any]:
    """LPIPS is optional: it needs torch and local AlexNet weights (never downloaded)."""
    import os
    from importlib import util
    from pathlib import Path

    from refig.plugin import Check, Status, docs

    weights = os.environ.get("REFIG_LPIPS_WEIGHTS")
    found = weights and (Path(weights) / "checkpoints" / "alexnet-owt-7be5be79.pth").is_file()
    if found and util.find_spec("torch") and util.find_spec("lpips"):
        yield Check("LPIPS", Status.OK, f"weights in {weights}")
    else:
        yield Check("LPIPS", Status.WARN, "optional; without torch and local weights the lpips "
                    "value is null", f"see {docs('metrics.md')} (LPIPS)")


def _factory(**options: Any) -> Any:
    from refig_metric_image.metric import ImageSimilarity

    return ImageSimilarity(**options)


@hookimpl
def refig_metrics() -> Iterator[MetricRecord]:
    yield MetricRecord(
        name="image",
        description="SSIM, PSNR, CIEDE2000 (LPIPS optional) of the rendering against the source.",
        factory=_factory,
        families=frozenset({"figure-to-slide"}),
        checks=_checks,
    )
