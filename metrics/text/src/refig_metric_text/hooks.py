"""Registers the `text` metric; the work lives in :mod:`.metric` (OCR loads only when it runs)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from refig.plugin import MetricRecord, hookimpl


def _checks() -> Iterator[Any]:
    """rapidocr-onnxruntime ships its models in the wheel; check they are there."""
    from importlib import metadata, util
    from pathlib import Path

    from refig.plugin import Check, Status, install_fix

    spec = util.find_spec("rapidocr_onnxruntime")
    models = sorted(Path(spec.origin).parent.glob("models/*.onnx")) if spec and spec.origin else []
    if not models:
        yield Check("OCR models", Status.MISSING, "rapidocr-onnxruntime or its models are missing",
                    install_fix("refig-toolkit-imaging[ocr]"), required=True)
        return
    version = metadata.version("rapidocr-onnxruntime")
    yield Check("OCR models", Status.OK, f"rapidocr-onnxruntime {version}: "
                + ", ".join(m.stem for m in models))


def _factory(**options: Any) -> Any:
    from refig_metric_text.metric import TextRecall

    return TextRecall(**options)


@hookimpl
def refig_metrics() -> Iterator[MetricRecord]:
    yield MetricRecord(
        name="text",
        description="Recall and precision of the slide's native text against OCR of the source.",
        factory=_factory,
        families=frozenset({"figure-to-slide"}),
        checks=_checks,
    )
