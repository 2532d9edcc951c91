"""The installed distribution registers the `edit-probes` metric through its entry point."""

from __future__ import annotations

from refig.plugins import Registry
from refig.protocols import Metric
from refig.records import PluginKind

FIGURE_TO_SLIDE = "figure-to-slide"
DECK_EDIT = "deck-edit"
FIGURE_TO_CODE = "figure-to-code"


def test_the_registry_finds_and_builds_the_metric() -> None:
    selection = Registry.load().resolve(PluginKind.METRIC, "edit-probes")
    assert selection.distribution == "refig-metric-edit-probes"
    assert selection.record.families == frozenset({FIGURE_TO_SLIDE, DECK_EDIT, FIGURE_TO_CODE})
    assert selection.record.default is False  # a probe deck an artifact: run when named
    metric = selection.create()
    assert isinstance(metric, Metric)
    assert metric.version
