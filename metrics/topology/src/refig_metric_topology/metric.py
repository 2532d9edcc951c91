"""The ``topology`` metric plugin object."""

from __future__ import annotations

from collections.abc import Iterator

from refig.plugin import Artifact, Metric, MetricValue, ValueMaker, source_sha256, unavailable
from refig_toolkit_pptx import object_tree

from refig_metric_topology.topology import AnnotationError, score

METRIC = "topology"
NAMES = (
    "node_recall",
    "edge_recall",
    "edge_precision",
    "edge_f1",
    "reversed_share",
    "undirected_share",
    "style_agreement",
    "dashed_agreement",
    "bidirectional_agreement",
)
#: A slide that did not pass the gate draws nothing: these score 0, the shares stay undefined.
ZERO_WHEN_UNREADABLE = ("node_recall", "edge_recall", "edge_precision", "edge_f1")


class TopologyMetric(Metric):
    """Scores a slide's nodes and directed edges against the task's figure annotation."""

    version = "1"

    def compute(self, artifact: Artifact) -> Iterator[MetricValue]:
        if artifact.annotation is None:
            return  # no annotation, nothing to compare with
        # The reference is the source figure the annotation describes, as for every metric that
        # compares against the task: `refig evaluate` finds the values stored under it, and
        # `load_artifacts` hands them to the judges.
        make = ValueMaker(artifact, METRIC, self.version, source_sha256(artifact))
        if object_tree(artifact) is None:
            reason = unavailable("no object tree", artifact)
            for name in NAMES:
                value = 0.0 if name in ZERO_WHEN_UNREADABLE and not artifact.gate.passed else None
                yield make.value(name, value, reason=reason)
            return
        try:
            result = score(object_tree(artifact), dict(artifact.annotation))
        except AnnotationError as exc:
            yield from make.missing(NAMES, f"unusable annotation: {exc}")
            return
        details = {
            "node_recall": {"counts": result.counts, "nodes": result.nodes},
            "edge_recall": {"counts": result.counts, "edges": result.edges},
            "edge_precision": {"counts": result.counts, "links": result.links},
        }
        for name in NAMES:
            yield make.value(name, result.values[name], **details.get(name, {}))
