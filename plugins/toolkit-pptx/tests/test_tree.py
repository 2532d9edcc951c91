"""O(P) on generated slides: every object kind, connectors, group transforms, line ends, text
and z-order (pictures, inheritance and frames: test_tree_inherited.py)."""

from __future__ import annotations

from pptx.chart.data import CategoryChartData
from pptx.enum.chart import XL_CHART_TYPE
from pptx.enum.dml import MSO_LINE
from pptx.enum.shapes import MSO_CONNECTOR, MSO_SHAPE
from pptx.util import Emu
from refig_toolkit_pptx import Endpoint, ObjectKind, Rect
from refig_toolkit_pptx.xml import q

COUNT_KEYS = {
    "text_boxes",
    "auto_shapes",
    "connectors",
    "bound_connectors",
    "freeforms",
    "groups",
    "pictures",
    "tables",
    "charts",
    "smartart",
}
E = 914_400  # EMU per inch



def test_basic_kinds_text_and_z_order(decks) -> None:
    prs = decks.new()
    shapes = prs.slides[0].shapes
    box = shapes.add_textbox(Emu(E), Emu(E), Emu(3 * E), Emu(E))
    box.text_frame.text = "first line"
    box.text_frame.add_paragraph().text = "second line"
    shapes.add_shape(MSO_SHAPE.ROUNDED_RECTANGLE, Emu(E), Emu(3 * E), Emu(E), Emu(E)).text = "box"
    builder = shapes.build_freeform(Emu(0), Emu(0))
    builder.add_line_segments([(Emu(E), Emu(0)), (Emu(E), Emu(E))])
    builder.convert_to_shape()
    table = shapes.add_table(2, 2, Emu(4 * E), Emu(E), Emu(3 * E), Emu(E)).table
    table.cell(0, 0).text, table.cell(1, 1).text = "north", "south"
    data = CategoryChartData()
    data.categories = ["alpha", "beta"]
    data.add_series("Sales", (1.0, 2.0))
    shapes.add_chart(
        XL_CHART_TYPE.COLUMN_CLUSTERED, Emu(0), Emu(4 * E), Emu(4 * E), Emu(2 * E), data
    )
    tree = decks.tree_of(decks.save(prs, "kinds"))

    counts = tree.counts()
    assert set(counts) == COUNT_KEYS
    assert counts == dict.fromkeys(COUNT_KEYS, 0) | {
        "text_boxes": 1,
        "auto_shapes": 1,
        "freeforms": 1,
        "tables": 1,
        "charts": 1,
    }
    text_box = decks.own(tree, ObjectKind.TEXT_BOX)[0]
    assert text_box.text == "first line\nsecond line"
    assert text_box.rect == Rect(x=E, y=E, w=3 * E, h=E)
    assert decks.own(tree, ObjectKind.AUTO_SHAPE)[0].geometry == "roundRect"
    assert decks.own(tree, ObjectKind.FREEFORM)[0].geometry == "custom"
    assert decks.own(tree, ObjectKind.TABLE)[0].text == "north\t\n\tsouth"
    assert {"alpha", "beta", "Sales"} <= set(decks.own(tree, ObjectKind.CHART)[0].text.split("\n"))
    assert [o.z for o in tree.objects] == list(range(len(tree.objects)))
    assert (tree.slide_width, tree.slide_height) == decks.WIDE


def test_free_bound_and_arrowed_connectors(decks) -> None:
    prs = decks.new()
    shapes = prs.slides[0].shapes
    a = shapes.add_shape(MSO_SHAPE.RECTANGLE, Emu(E), Emu(E), Emu(E), Emu(E))
    b = shapes.add_shape(MSO_SHAPE.OVAL, Emu(5 * E), Emu(E), Emu(E), Emu(E))
    bound = shapes.add_connector(MSO_CONNECTOR.ELBOW, Emu(0), Emu(0), Emu(1), Emu(1))
    bound.begin_connect(a, 3)
    bound.end_connect(b, 1)
    line = bound.line._get_or_add_ln()
    line.append(decks.element('<a:tailEnd type="triangle"/>'))
    half = shapes.add_connector(MSO_CONNECTOR.STRAIGHT, Emu(0), Emu(3 * E), Emu(E), Emu(3 * E))
    half.begin_connect(a, 2)
    free = shapes.add_connector(MSO_CONNECTOR.STRAIGHT, Emu(0), Emu(5 * E), Emu(E), Emu(6 * E))
    free.line.dash_style = MSO_LINE.DASH
    ghost = shapes.add_connector(MSO_CONNECTOR.CURVE, Emu(0), Emu(6 * E), Emu(E), Emu(6 * E))
    ghost.begin_connect(a, 0)
    ghost.end_connect(b, 0)
    ghost._element.find(".//" + q("a:endCxn")).set("id", "999")  # bound to no shape
    tree = decks.tree_of(decks.save(prs, "connectors"))

    connectors = decks.own(tree, ObjectKind.CONNECTOR)
    assert len(connectors) == 4
    first = connectors[0]
    assert first.start == Endpoint(shape_id=a.shape_id, site=3)
    assert first.end == Endpoint(shape_id=b.shape_id, site=1)
    assert (first.start_arrow, first.end_arrow) == (None, "triangle")
    assert first.geometry == "bentConnector3"
    assert connectors[1].start is not None and connectors[1].end is None
    assert connectors[2].start is None and connectors[2].dash == "dash"
    assert tree.counts()["connectors"] == 4
    assert tree.counts()["bound_connectors"] == 1  # half-bound and dangling ends do not count


NESTED = """
<p:grpSp>
  <p:nvGrpSpPr><p:cNvPr id="20" name="Outer"/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr>
  <p:grpSpPr><a:xfrm><a:off x="1000000" y="1000000"/><a:ext cx="2000000" cy="2000000"/>
    <a:chOff x="0" y="0"/><a:chExt cx="1000000" cy="1000000"/></a:xfrm></p:grpSpPr>
  <p:sp><p:nvSpPr><p:cNvPr id="21" name="A"/><p:cNvSpPr/><p:nvPr/></p:nvSpPr>
    <p:spPr><a:xfrm><a:off x="100000" y="100000"/><a:ext cx="200000" cy="200000"/></a:xfrm>
    <a:prstGeom prst="rect"><a:avLst/></a:prstGeom></p:spPr>
    <p:txBody><a:bodyPr/><a:p><a:r><a:t>in outer</a:t></a:r></a:p></p:txBody></p:sp>
  <p:grpSp>
    <p:nvGrpSpPr><p:cNvPr id="22" name="Inner"/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr>
    <p:grpSpPr><a:xfrm><a:off x="500000" y="500000"/><a:ext cx="500000" cy="500000"/>
      <a:chOff x="0" y="0"/><a:chExt cx="1000000" cy="1000000"/></a:xfrm></p:grpSpPr>
    <p:sp><p:nvSpPr><p:cNvPr id="23" name="B"/><p:cNvSpPr/><p:nvPr/></p:nvSpPr>
      <p:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="1000000" cy="1000000"/></a:xfrm>
      <a:prstGeom prst="ellipse"><a:avLst/></a:prstGeom></p:spPr></p:sp>
  </p:grpSp>
</p:grpSp>
"""


def test_nested_groups_map_child_coordinates_into_the_slide(decks) -> None:
    prs = decks.new()
    prs.slides[0].shapes._spTree.append(decks.element(NESTED))
    tree = decks.tree_of(decks.save(prs, "nested"))
    outer = tree.objects[0]
    assert outer.kind == ObjectKind.GROUP and outer.rect == Rect(x=1e6, y=1e6, w=2e6, h=2e6)
    a, inner = outer.children
    # The outer group doubles its children and moves them by (1e6, 1e6).
    assert a.rect == Rect(x=1.2e6, y=1.2e6, w=4e5, h=4e5) and a.text == "in outer"
    assert inner.rect == Rect(x=2e6, y=2e6, w=1e6, h=1e6)
    # The inner group halves, the outer doubles: the ellipse fills the inner group's box.
    assert inner.children[0].rect == Rect(x=2e6, y=2e6, w=1e6, h=1e6)
    assert tree.counts()["groups"] == 2 and tree.counts()["auto_shapes"] == 2
    assert [o.z for o in tree.walk()] == [0, 1, 2, 3]


def test_a_hidden_group_hides_its_children_from_the_counts(decks) -> None:
    prs = decks.new()
    prs.slides[0].shapes._spTree.append(decks.element(NESTED))
    prs.slides[0].shapes._spTree[-1][0][0].set("hidden", "1")
    tree = decks.tree_of(decks.save(prs, "hidden-group"))
    assert tree.objects[0].hidden and len(list(tree.walk())) == 4
    assert tree.counts() == dict.fromkeys(COUNT_KEYS, 0)


def test_python_pptx_nested_groups_are_counted_recursively(decks) -> None:
    prs = decks.new()
    outer = prs.slides[0].shapes.add_group_shape()
    outer.shapes.add_shape(MSO_SHAPE.RECTANGLE, Emu(0), Emu(0), Emu(E), Emu(E))
    inner = outer.shapes.add_group_shape()
    inner.shapes.add_shape(MSO_SHAPE.OVAL, Emu(E), Emu(E), Emu(E), Emu(E))
    inner.shapes.add_group_shape().shapes.add_textbox(Emu(2 * E), Emu(2 * E), Emu(E), Emu(E))
    counts = decks.tree_of(decks.save(prs, "groups")).counts()
    assert (counts["groups"], counts["auto_shapes"], counts["text_boxes"]) == (3, 2, 1)


def test_arrow_heads_and_dashes_on_line_shapes_and_freeforms(decks) -> None:
    """Not only connectors: a ``p:sp`` line and a freeform carry their heads and dash too."""
    prs = decks.new()
    shapes = prs.slides[0].shapes
    line = shapes.add_shape(MSO_SHAPE.RECTANGLE, Emu(0), Emu(E), Emu(2 * E), Emu(0))
    line._element.spPr.find(q("a:prstGeom")).set("prst", "line")
    outline = line.line._get_or_add_ln()
    outline.append(decks.element('<a:prstDash val="sysDot"/>'))
    outline.append(decks.element('<a:headEnd type="oval"/>'))
    outline.append(decks.element('<a:tailEnd type="triangle"/>'))
    builder = shapes.build_freeform(Emu(0), Emu(3 * E))
    builder.add_line_segments([(Emu(E), Emu(3 * E)), (Emu(2 * E), Emu(4 * E))], close=False)
    curve = builder.convert_to_shape()
    curve.line._get_or_add_ln().append(decks.element('<a:tailEnd type="stealth"/>'))
    tree = decks.tree_of(decks.save(prs, "arrowed-shapes"))

    shape = decks.own(tree, ObjectKind.AUTO_SHAPE)[0]
    assert (shape.geometry, shape.start_arrow, shape.end_arrow) == ("line", "oval", "triangle")
    assert shape.dash == "sysDot"
    freeform = decks.own(tree, ObjectKind.FREEFORM)[0]
    assert (freeform.start_arrow, freeform.end_arrow, freeform.dash) == (None, "stealth", None)
