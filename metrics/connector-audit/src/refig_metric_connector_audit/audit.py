"""The connector audit: how a slide draws the links of a figure.

Only ``p:cxnSp`` objects are native connectors: they alone can bind to shapes (``a:stCxn`` /
``a:endCxn``) and follow them when the shapes move. A ``p:sp`` drawn with a line preset
(``prstGeom line`` or a connector preset) looks like one but cannot bind, so it is a free line, as
is a freeform that carries an arrow head and a connector with neither end bound.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from refig.plugin import Artifact, Metric, MetricValue, ValueMaker, unavailable
from refig_toolkit_pptx import ObjectKind, ObjectTree, SlideObject, object_tree
from refig_toolkit_pptx.lines import arrow_count, has_line_preset

METRIC = "connector-audit"

NAMES = (
    "connector_count",
    "has_native_connector",
    "bound_connectors",
    "half_bound_connectors",
    "free_lines",
    "arrow_heads",
    "block_arrows",
)

#: How many objects a detail list names before it stops (the counts stay exact).
DETAIL_LIMIT = 50


def is_line_shape(obj: SlideObject) -> bool:
    """A non-connector drawn as a line: a line or connector preset, or an arrowed freeform."""
    if obj.kind is ObjectKind.CONNECTOR:
        return False
    return has_line_preset(obj) or (obj.kind is ObjectKind.FREEFORM and arrow_count(obj) > 0)


def is_block_arrow(obj: SlideObject) -> bool:
    """An auto shape with an arrow preset (``rightArrow``, ``bentUpArrow``...)."""
    geometry = obj.geometry or ""
    return obj.kind is ObjectKind.AUTO_SHAPE and (
        geometry.endswith("Arrow") or "ArrowCallout" in geometry
    )


@dataclass
class AuditCounts:
    """The audit of one object tree; ``detail`` lists what each count is made of."""

    connectors: list[SlideObject] = field(default_factory=list)
    bound: int = 0
    half_bound: int = 0
    dangling_ends: int = 0
    unbound_connectors: int = 0
    line_shapes: list[SlideObject] = field(default_factory=list)
    arrow_heads: Counter[str] = field(default_factory=Counter)
    block_arrows: int = 0
    hidden_skipped: int = 0

    @property
    def free_lines(self) -> int:
        """Connectors with no bound end, and shapes drawn as lines."""
        return self.unbound_connectors + len(self.line_shapes)


def audit(tree: ObjectTree) -> AuditCounts:
    """Count connectors, their bound ends, free lines, arrow heads and block arrows.

    Only the slide's own objects count (not the layout's or master's decorations), of each
    ``mc:AlternateContent`` the branch that is shown, and nothing hidden.
    """
    own = [o for o in tree.walk() if o.layer == "slide" and o.alternate_selected]
    counts = AuditCounts(hidden_skipped=sum(1 for o in own if o.hidden))
    objects = list(tree.shown())
    # As in ObjectTree.counts: an end binds to a shown non-connector id, else it dangles.
    targets = {o.id for o in objects if o.id is not None and o.kind is not ObjectKind.CONNECTOR}
    for obj in objects:
        heads = arrow_count(obj)
        if heads and (obj.kind is ObjectKind.CONNECTOR or is_line_shape(obj)):
            counts.arrow_heads[obj.kind.value] += heads
        if obj.kind is ObjectKind.CONNECTOR:
            counts.connectors.append(obj)
            ends = [end for end in (obj.start, obj.end) if end is not None]
            bound_ends = sum(1 for end in ends if end.shape_id in targets)
            counts.dangling_ends += len(ends) - bound_ends
            if bound_ends == 2:
                counts.bound += 1
            elif bound_ends == 1:
                counts.half_bound += 1
            else:
                counts.unbound_connectors += 1
        elif is_line_shape(obj):
            counts.line_shapes.append(obj)
        elif is_block_arrow(obj):
            counts.block_arrows += 1
    return counts


def describe(obj: SlideObject) -> dict[str, Any]:
    """A compact, JSON-ready description of a line-like object for a value's detail."""
    return {
        "id": obj.id,
        "name": obj.name,
        "kind": obj.kind.value,
        "geometry": obj.geometry,
        "start": obj.start.shape_id if obj.start else None,
        "end": obj.end.shape_id if obj.end else None,
        "start_arrow": obj.start_arrow,
        "end_arrow": obj.end_arrow,
    }


def listing(objects: Iterable[SlideObject]) -> list[dict[str, Any]]:
    """The first ``DETAIL_LIMIT`` objects, described."""
    return [describe(obj) for obj in list(objects)[:DETAIL_LIMIT]]


class ConnectorAudit(Metric):
    """The ``connector-audit`` metric: one value per count, plus the audit-table summary."""

    version = "2"  # 2: an end glued to a hidden shape dangles

    def compute(self, artifact: Artifact) -> Iterator[MetricValue]:
        make = ValueMaker(artifact, METRIC, self.version)
        if object_tree(artifact) is None:
            reason = unavailable("no object tree", artifact)
            yield from make.missing(NAMES, reason, gate_reason=artifact.gate.reason)
            return
        counts = audit(object_tree(artifact))
        total = len(counts.connectors)
        yield make.value(
            "connector_count",
            total,
            connectors=listing(counts.connectors),
            hidden_objects_skipped=counts.hidden_skipped,
        )
        yield make.value("has_native_connector", 1 if total else 0)
        yield make.value("bound_connectors", counts.bound, dangling_ends=counts.dangling_ends)
        yield make.value("half_bound_connectors", counts.half_bound)
        yield make.value(
            "free_lines",
            counts.free_lines,
            unbound_connectors=counts.unbound_connectors,
            line_shapes=len(counts.line_shapes),
            lines=listing(counts.line_shapes),
        )
        yield make.value(
            "arrow_heads", sum(counts.arrow_heads.values()), by_kind=dict(counts.arrow_heads)
        )
        yield make.value("block_arrows", counts.block_arrows)
