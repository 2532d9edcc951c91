"""The audit on object trees built by hand: every rule of the count, one case each."""

from __future__ import annotations

from pathlib import Path

from refig.models import GateReason, GateResult
from refig.protocols import Artifact
from refig_metric_connector_audit.audit import ConnectorAudit
from refig_toolkit_pptx import Endpoint, ObjectKind, ObjectTree, Rect, SlideObject

BOX = Rect(x=0, y=0, w=100, h=100)


def shape(id_: int, geometry: str = "rect", **fields: object) -> SlideObject:
    return SlideObject(id=id_, kind=ObjectKind.AUTO_SHAPE, geometry=geometry, rect=BOX, **fields)


def connector(id_: int, start: int | None, end: int | None, **fields: object) -> SlideObject:
    return SlideObject(
        id=id_,
        kind=ObjectKind.CONNECTOR,
        geometry="straightConnector1",
        rect=BOX,
        start=Endpoint(shape_id=start, site=1) if start is not None else None,
        end=Endpoint(shape_id=end, site=3) if end is not None else None,
        **fields,
    )


def values(*objects: SlideObject) -> dict[str, float | None]:
    tree = ObjectTree(slide_width=9144000, slide_height=5143500, objects=objects)
    artifact = Artifact(
        path=Path("x.pptx"), sha256="0" * 64, gate=GateResult(passed=True), structure=tree
    )
    result = {v.name: v.value for v in ConnectorAudit().compute(artifact)}
    return result


def test_bound_half_bound_and_free_connectors_are_told_apart() -> None:
    got = values(
        shape(1),
        shape(2),
        connector(10, 1, 2, end_arrow="triangle"),
        connector(11, 1, None),
        connector(12, None, None, start_arrow="arrow", end_arrow="arrow"),
    )
    assert got["connector_count"] == 3
    assert got["has_native_connector"] == 1
    assert got["bound_connectors"] == 1
    assert got["half_bound_connectors"] == 1
    assert got["free_lines"] == 1
    assert got["arrow_heads"] == 3


def test_line_preset_shapes_are_free_lines_not_connectors() -> None:
    got = values(
        shape(1),
        shape(2, "line", end_arrow="triangle"),
        shape(3, "bentConnector3"),
        SlideObject(id=4, kind=ObjectKind.FREEFORM, geometry="custom", end_arrow="stealth"),
        SlideObject(id=5, kind=ObjectKind.FREEFORM, geometry="custom"),  # a closed blob, no head
    )
    assert got["connector_count"] == 0
    assert got["has_native_connector"] == 0
    assert got["free_lines"] == 3
    assert got["arrow_heads"] == 2


def test_an_end_bound_to_a_missing_shape_dangles() -> None:
    artifact_values = values(shape(1), connector(10, 1, 99))
    assert artifact_values["bound_connectors"] == 0
    assert artifact_values["half_bound_connectors"] == 1


def test_connectors_inside_nested_groups_count_and_hidden_ones_do_not() -> None:
    inner = SlideObject(
        id=20, kind=ObjectKind.GROUP, children=(shape(2), connector(21, 1, 2, end_arrow="triangle"))
    )
    outer = SlideObject(id=30, kind=ObjectKind.GROUP, children=(shape(1), inner))
    hidden = connector(40, 1, 2, hidden=True)
    got = values(outer, hidden)
    assert got["connector_count"] == 1
    assert got["bound_connectors"] == 1


def test_only_the_shown_branch_of_alternate_content_counts() -> None:
    choice = connector(10, 1, 2, in_alternate_content=True, alternate_branch="choice")
    fallback = connector(
        10, 1, 2, in_alternate_content=True, alternate_branch="fallback", alternate_selected=False
    )
    assert values(shape(1), shape(2), choice, fallback)["connector_count"] == 1


def test_layout_and_master_decorations_do_not_count() -> None:
    got = values(connector(5, None, None, layer="master"), shape(6, "line", layer="layout"))
    assert got["connector_count"] == 0
    assert got["free_lines"] == 0


def test_block_arrows_and_none_heads() -> None:
    got = values(
        shape(1, "rightArrow"),
        shape(2, "bentUpArrow"),
        shape(3, "homePlate"),
        connector(4, None, None, start_arrow="none", end_arrow="none"),
    )
    assert got["block_arrows"] == 2
    assert got["arrow_heads"] == 0


def test_no_tree_gives_none_with_a_reason() -> None:
    artifact = Artifact(
        path=Path("x.pptx"),
        sha256="0" * 64,
        gate=GateResult(passed=False, reason=GateReason.NOT_A_ZIP),
    )
    got = list(ConnectorAudit().compute(artifact))
    assert {v.name for v in got} >= {"connector_count", "has_native_connector"}
    assert all(v.value is None for v in got)
    assert "gate failed" in got[0].detail["reason"]


def test_an_end_glued_to_a_hidden_shape_dangles_as_in_the_tree_counts() -> None:
    objects = (shape(1), shape(2, hidden=True), connector(10, 1, 2))
    got = values(*objects)
    assert got["bound_connectors"] == 0 and got["half_bound_connectors"] == 1
    tree = ObjectTree(slide_width=9144000, slide_height=5143500, objects=objects)
    assert tree.counts()["bound_connectors"] == got["bound_connectors"]
