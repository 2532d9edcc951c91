"""The installed distribution registers the `text` metric through its entry point."""

from __future__ import annotations

from refig.plugins import Registry
from refig.protocols import Metric
from refig.records import PluginKind


def test_the_registry_finds_and_builds_the_metric() -> None:
    selection = Registry.load().resolve(PluginKind.METRIC, "text")
    assert selection.distribution == "refig-metric-text"
    metric = selection.create()
    assert isinstance(metric, Metric)
    assert metric.version


def test_its_environment_digests_the_ocr_models() -> None:
    from refig_metric_text.metric import TextRecall

    found = TextRecall().environment()
    assert found["version"] == TextRecall.version
    assert len(found["ocr_models_sha256"]) == 64
    assert found["rapidocr-onnxruntime"] != "not installed"
