"""The installed distribution registers the `image` metric through its entry point."""

from __future__ import annotations

from refig.plugins import Registry
from refig.protocols import Metric
from refig.records import PluginKind


def test_the_registry_finds_and_builds_the_metric() -> None:
    selection = Registry.load().resolve(PluginKind.METRIC, "image")
    assert selection.distribution == "refig-metric-image"
    metric = selection.create()
    assert isinstance(metric, Metric)
    assert metric.version
