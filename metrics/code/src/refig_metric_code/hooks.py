"""Registers the `code` metric (figure-to-code); the work lives in :mod:`.metric`."""

from __future__ import annotations

from typing import Any

from refig.plugin import MetricRecord, hookimpl

FIGURE_TO_CODE = "figure-to-code"


def _factory(**options: Any) -> Any:
    from refig_metric_code.metric import CodeMetrics

    return CodeMetrics(**options)


@hookimpl
def refig_metrics() -> Any:
    yield MetricRecord(
        name="code",
        description="FigCodeBench: execution, PSNR/SSIM/LPIPS/CIEDE2000 at 256 px (raw and "
                    "weighted), CrystalBLEU counts, AST, plotting-API F1, CodeBERTScore (local "
                    "model), FCF at 1024 px, raster smuggling.",
        factory=_factory,
        families=frozenset({FIGURE_TO_CODE}),
    )
