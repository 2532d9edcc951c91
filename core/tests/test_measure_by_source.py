"""Metrics run once per source figure's group of artifacts (so a source's OCR is done by one
worker, once), and one artifact's failure costs none of its neighbours."""

from __future__ import annotations

import hashlib
from pathlib import Path

from refig.engine import plugins
from refig.engine.stages import MeasureSource, by_source
from refig.models import Asset, GateResult, Task
from refig.plugins import Registry
from refig.protocols import Artifact

HOOKS = """
import os

from refig import hookimpl
from refig.models import MetricValue
from refig.protocols import Metric
from refig.records import MetricRecord


class Fussy(Metric):
    version = "1"
    calls = []

    def compute(self, artifact):
        Fussy.calls.append(artifact.sha256)
        if artifact.sha256.startswith("bad"):
            raise ValueError("cannot measure this one")
        yield MetricValue(artifact_sha256=artifact.sha256, metric="fussy", name="n",
                          value=1.0, version="1")


@hookimpl
def refig_metrics():
    yield MetricRecord(name="fussy", description="fails on artifacts named bad*",
                       factory=lambda **_: Fussy(), default=False)
"""


def artifact(sha: str, source: str | None) -> Artifact:
    task = None
    if source is not None:
        figure = Asset(path="assets/x.png", sha256=hashlib.sha256(source.encode()).hexdigest())
        task = Task(id=f"t-{sha}", family="figure-to-slide", inputs={"figure": figure})
    return Artifact(path=Path(sha), sha256=sha, gate=GateResult(passed=True),
                    family="figure-to-slide", task=task)


def test_artifacts_are_grouped_by_their_source_figure() -> None:
    items = [artifact("a1", "s1"), artifact("b1", "s2"), artifact("a2", "s1"),
             artifact("x", None), artifact("y", None)]
    groups = [[a.sha256 for a in group] for group in by_source(items)]
    assert groups == [["a1", "a2"], ["b1"], ["x"], ["y"]]


def test_a_failing_artifact_costs_its_group_nothing(make_dist) -> None:
    make_dist("refig-metric-fussy", HOOKS)
    plugins.use_registry(Registry.load())
    try:
        measured = MeasureSource("fussy")(
            [artifact("good1", "s"), artifact("bad1", "s"), artifact("good2", "s")]
        )
    finally:
        plugins.close_plugins()
    assert [v.artifact_sha256 for v in measured.values] == ["good1", "good2"]
    assert len(measured.failures) == 1 and "bad1" in measured.failures[0]
    assert "cannot measure this one" in measured.failures[0]


#: The same metric, named ``batched``, that also prepares each group (and notes it).
PREPARING = HOOKS.replace('"fussy"', '"batched"').replace(
    "    def compute(self, artifact):",
    "    def prepare(self, artifacts):\n"
    "        Fussy.calls.append([a.sha256 for a in artifacts])\n\n"
    "    def compute(self, artifact):",
)


def test_a_metric_prepares_its_group_before_computing_each(make_dist) -> None:
    make_dist("refig-metric-batched", PREPARING)
    plugins.use_registry(Registry.load())
    try:
        measured = MeasureSource("batched")([artifact("a1", "s"), artifact("a2", "s")])
        calls = type(plugins.plugin(plugins.PluginKind.METRIC, "batched")).calls
    finally:
        plugins.close_plugins()
    assert [v.artifact_sha256 for v in measured.values] == ["a1", "a2"]
    assert calls == [["a1", "a2"], "a1", "a2"]  # the group prepared, then each computed
