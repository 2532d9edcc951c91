"""The audit on real .pptx files read by refig's object-tree reader."""

from __future__ import annotations

from types import ModuleType

import pytest
from lxml import etree
from pptx.enum.shapes import MSO_CONNECTOR, MSO_SHAPE
from pptx.oxml.ns import qn
from pptx.util import Emu
from refig_metric_connector_audit.audit import ConnectorAudit
from refig_toolkit_pptx import object_tree


def audit_values(artifact) -> dict[str, float | None]:
    return {v.name: v.value for v in ConnectorAudit().compute(artifact)}


def test_native_rebuild_has_bound_arrowed_connectors(kit: ModuleType, slides) -> None:
    prs, slide = kit.new_slide()
    kit.add_native_figure(slide)
    got = audit_values(kit.inspect(kit.save(prs, slides("native"))))
    assert got["connector_count"] == 5
    assert got["bound_connectors"] == 5
    assert got["free_lines"] == 0
    assert got["arrow_heads"] == 5


def test_lines_drawn_as_shapes_and_loose_connectors_are_free(kit: ModuleType, slides) -> None:
    prs, slide = kit.new_slide()
    a = slide.shapes.add_shape(MSO_SHAPE.RECTANGLE, Emu(0), Emu(0), Emu(1_000_000), Emu(500_000))
    slide.shapes.add_connector(MSO_CONNECTOR.ELBOW, Emu(1_000_000), 0, Emu(3_000_000), 0)
    half = slide.shapes.add_connector(MSO_CONNECTOR.STRAIGHT, 0, 0, Emu(2_000_000), Emu(2_000_000))
    half.begin_connect(a, 2)
    # A p:sp with prstGeom "line": it looks like a connector but cannot bind to anything.
    line = slide.shapes.add_shape(MSO_SHAPE.RECTANGLE, Emu(0), Emu(3_000_000), Emu(2_000_000), 0)
    line._element.spPr.find(qn("a:prstGeom")).set("prst", "line")
    head = etree.SubElement(line.line._get_or_add_ln(), qn("a:headEnd"))
    head.set("type", "stealth")
    arrow = slide.shapes.add_shape(
        MSO_SHAPE.RIGHT_ARROW, Emu(0), Emu(4_000_000), Emu(900_000), Emu(400_000)
    )
    assert arrow.auto_shape_type == MSO_SHAPE.RIGHT_ARROW
    got = audit_values(kit.inspect(kit.save(prs, slides("free"))))
    assert got["connector_count"] == 2
    assert got["has_native_connector"] == 1
    assert got["bound_connectors"] == 0
    assert got["half_bound_connectors"] == 1
    assert got["free_lines"] == 2  # the loose connector and the line shape
    assert got["block_arrows"] == 1


def test_arrow_heads_on_line_shapes_count(kit: ModuleType, slides) -> None:
    prs, slide = kit.new_slide()
    line = slide.shapes.add_shape(MSO_SHAPE.RECTANGLE, Emu(0), Emu(3_000_000), Emu(2_000_000), 0)
    line._element.spPr.find(qn("a:prstGeom")).set("prst", "line")
    etree.SubElement(line.line._get_or_add_ln(), qn("a:tailEnd")).set("type", "triangle")
    got = audit_values(kit.inspect(kit.save(prs, slides("arrowed-line"))))
    assert got["free_lines"] == 1
    assert got["arrow_heads"] == 1


def test_an_arrowed_freeform_is_a_free_line(kit: ModuleType, slides) -> None:
    prs, slide = kit.new_slide()
    builder = slide.shapes.build_freeform(Emu(0), Emu(0))
    builder.add_line_segments([(Emu(900_000), Emu(0)), (Emu(900_000), Emu(900_000))], close=False)
    curve = builder.convert_to_shape()
    etree.SubElement(curve.line._get_or_add_ln(), qn("a:tailEnd")).set("type", "arrow")
    blob = slide.shapes.build_freeform(Emu(2_000_000), Emu(0))  # a closed outline, no head
    blob.add_line_segments([(Emu(2_900_000), Emu(0)), (Emu(2_900_000), Emu(900_000))])
    blob.convert_to_shape()
    got = audit_values(kit.inspect(kit.save(prs, slides("arrowed-freeform"))))
    assert got["free_lines"] == 1
    assert got["arrow_heads"] == 1
    assert got["connector_count"] == 0


def test_a_connector_inside_alternate_content_counts_once(kit: ModuleType, slides) -> None:
    prs, slide = kit.new_slide()
    a = slide.shapes.add_shape(MSO_SHAPE.OVAL, Emu(0), Emu(0), Emu(900_000), Emu(900_000))
    b = slide.shapes.add_shape(MSO_SHAPE.OVAL, Emu(3_000_000), Emu(0), Emu(900_000), Emu(900_000))
    link = slide.shapes.add_connector(MSO_CONNECTOR.STRAIGHT, 0, 0, 0, 0)
    link.begin_connect(a, 3)
    link.end_connect(b, 1)
    kit.wrap_in_alternate_content(slide, link._element)
    got = audit_values(kit.inspect(kit.save(prs, slides("alternate"))))
    assert got["connector_count"] == 1
    assert got["bound_connectors"] == 1


def test_a_slide_without_lines(kit: ModuleType, slides) -> None:
    prs, slide = kit.new_slide()
    slide.shapes.add_textbox(Emu(0), Emu(0), Emu(3_000_000), Emu(500_000)).text_frame.text = "Hi"
    got = audit_values(kit.inspect(kit.save(prs, slides("plain"))))
    assert got["has_native_connector"] == 0
    assert got["connector_count"] == 0


def test_real_decks_audit_without_error(kit: ModuleType) -> None:
    decks = sorted(kit.PPTX_REAL.glob("*.pptx")) if kit.PPTX_REAL.is_dir() else []
    if not decks:
        pytest.skip(f"no real decks at {kit.PPTX_REAL}")
    for deck in decks:
        artifact = kit.inspect(deck)
        if object_tree(artifact) is None:  # no slide: the gate stops it before any metric
            continue
        got = audit_values(artifact)
        assert got["connector_count"] is not None, deck.name
        assert got["bound_connectors"] + got["half_bound_connectors"] <= got["connector_count"]
    connectors = audit_values(kit.inspect(kit.PPTX_REAL / "shp-connector-props.pptx"))
    assert connectors["connector_count"] >= 1
