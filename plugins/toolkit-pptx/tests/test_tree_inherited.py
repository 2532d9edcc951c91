"""O(P) on generated slides: pictures however hidden, what a slide inherits from its layout,
master and theme, and the frames (SmartArt, charts, OLE, alternate content) it draws from."""

from __future__ import annotations

import hashlib
import io

from pptx.chart.data import CategoryChartData
from pptx.enum.chart import XL_CHART_TYPE
from pptx.enum.shapes import MSO_SHAPE
from pptx.util import Emu
from refig_toolkit_pptx import ObjectKind, Rect, embedded_images
from refig_toolkit_pptx.gate import inspect_structure
from refig_toolkit_pptx.xml import q

E = 914_400  # EMU per inch


def test_pictures_however_hidden(decks) -> None:
    prs = decks.new()
    slide = prs.slides[0]
    width, height = decks.WIDE
    pngs = [decks.png_bytes(color=(i * 40, 0, 0)) for i in range(1, 6)]
    shas = [hashlib.sha256(p).hexdigest() for p in pngs]
    # 1. a full-slide paste
    slide.shapes.add_picture(io.BytesIO(pngs[0]), 0, 0, Emu(width), Emu(height))
    # 2. a picture in both branches of mc:AlternateContent
    rid = decks.image_rel(slide.part, pngs[1])
    alternate = (
        '<mc:AlternateContent xmlns:p14="http://schemas.microsoft.com/office/powerpoint/2010/main">'
        f'<mc:Choice Requires="p14">{decks.picture_xml(rid, 40, (0, 0, E, E))}</mc:Choice>'
        f"<mc:Fallback>{decks.picture_xml(rid, 41, (0, 0, E, E))}</mc:Fallback>"
        "</mc:AlternateContent>"
    )
    slide.shapes._spTree.append(decks.element(alternate))
    # 3. a picture fill inside an auto shape
    shape = slide.shapes.add_shape(MSO_SHAPE.RECTANGLE, Emu(E), Emu(E), Emu(2 * E), Emu(E))
    fill_rid = decks.image_rel(slide.part, pngs[2])
    shape._element.spPr.find(q("a:prstGeom")).addnext(decks.element(decks.blip_fill(fill_rid)))
    # 4. the slide background
    bg_rid = decks.image_rel(slide.part, pngs[3])
    background = f"<p:bg><p:bgPr>{decks.blip_fill(bg_rid)}<a:effectLst/></p:bgPr></p:bg>"
    slide._element.cSld.insert(0, decks.element(background))
    path = decks.save(prs, "pictures")
    tree = decks.tree_of(path)

    pictures = decks.own(tree, ObjectKind.PICTURE)
    assert len(pictures) == 3  # the paste and both branches
    paste = pictures[0]
    assert paste.rect == Rect(x=0, y=0, w=width, h=height) and paste.image_sha256 == shas[0]
    assert paste.image_part is not None and not paste.image_fill
    choice, fallback = pictures[1:]
    assert choice.in_alternate_content and fallback.in_alternate_content
    assert (choice.alternate_branch, fallback.alternate_branch) == ("choice", "fallback")
    assert choice.alternate_selected and not fallback.alternate_selected
    assert choice.image_sha256 == fallback.image_sha256 == shas[1]
    assert tree.counts()["pictures"] == 2  # an alternate counts once
    filled = decks.own(tree, ObjectKind.AUTO_SHAPE)[0]
    assert filled.image_fill and filled.image_sha256 == shas[2]
    assert tree.background_image_sha256 == shas[3] and tree.background_image_part

    images = embedded_images(path)
    assert {image.sha256 for image in images.values()} == set(shas[:4])
    assert all(images[o.image_part].data for o in tree.walk() if o.image_part)
    assert images[paste.image_part].width == 64 and images[paste.image_part].height == 48


def test_background_and_pictures_inherited_from_layout_and_master(decks) -> None:
    prs = decks.new()
    slide = prs.slides[0]
    layout, master = slide.slide_layout, slide.slide_layout.slide_master
    bg, logo = decks.png_bytes(color=(1, 2, 3)), decks.png_bytes(color=(4, 5, 6))
    rid = decks.image_rel(layout.part, bg)
    layout._element.cSld.insert(
        0, decks.element(f"<p:bg><p:bgPr>{decks.blip_fill(rid)}<a:effectLst/></p:bgPr></p:bg>")
    )
    master_rid = decks.image_rel(master.part, logo)
    master.shapes._spTree.append(decks.element(decks.picture_xml(master_rid, 90, (0, 0, E, E))))
    path = decks.save(prs, "inherited")
    tree = decks.tree_of(path)
    assert tree.background_image_sha256 == hashlib.sha256(bg).hexdigest()
    inherited = [o for o in tree.objects if o.layer != "slide"]
    assert [(o.kind, o.layer) for o in inherited] == [(ObjectKind.PICTURE, "master")]
    assert inherited[0].z < 0 and inherited[0].image_sha256 == hashlib.sha256(logo).hexdigest()
    assert tree.counts()["pictures"] == 0  # the slide's own objects only
    assert {i.sha256 for i in embedded_images(path).values()} >= {
        hashlib.sha256(bg).hexdigest(),
        hashlib.sha256(logo).hexdigest(),
    }

    slide._element.set("showMasterSp", "0")
    hidden = decks.tree_of(decks.save(prs, "no-master-shapes"))
    assert all(o.layer == "slide" for o in hidden.objects)


def test_placeholders_inherit_geometry_from_the_layout(decks) -> None:
    prs = decks.new(slides=0)
    slide = prs.slides.add_slide(prs.slide_layouts[1])  # title and content
    slide.shapes.title.text = "The title"
    slide.placeholders[1].text = "A point"
    assert slide.shapes.title._element.spPr.find(q("a:xfrm")) is None
    tree = decks.tree_of(decks.save(prs, "placeholders"))
    title, body = decks.own(tree, ObjectKind.PLACEHOLDER)
    assert (title.placeholder, title.text) == ("title", "The title")
    expected = slide.shapes.title  # python-pptx inherits the layout's position too
    assert title.rect == Rect(x=expected.left, y=expected.top, w=expected.width, h=expected.height)
    assert body.text == "A point" and body.rect is not None


def test_smartart_ole_and_hidden_objects(decks) -> None:
    prs = decks.new()
    frame = (
        '<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="50" name="Diagram"/>'
        "<p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr>"
        '<p:xfrm><a:off x="0" y="0"/><a:ext cx="914400" cy="914400"/></p:xfrm>'
        '<a:graphic><a:graphicData uri="{uri}"/></a:graphic></p:graphicFrame>'
    )
    spTree = prs.slides[0].shapes._spTree
    spTree.append(
        decks.element(frame.format(uri="http://schemas.openxmlformats.org/drawingml/2006/diagram"))
    )
    spTree.append(
        decks.element(frame.format(uri="http://schemas.openxmlformats.org/presentationml/2006/ole"))
    )
    box = prs.slides[0].shapes.add_textbox(Emu(0), Emu(0), Emu(E), Emu(E))
    box._element.nvSpPr.cNvPr.set("hidden", "1")
    tree = decks.tree_of(decks.save(prs, "frames"))
    assert tree.counts()["smartart"] == 1
    assert [o.kind for o in tree.objects] == [
        ObjectKind.SMARTART,
        ObjectKind.OLE,
        ObjectKind.TEXT_BOX,
    ]
    assert tree.objects[2].hidden and tree.counts()["text_boxes"] == 0  # it does not paint


DIAGRAM_DATA = (
    '<dgm:dataModel xmlns:dgm="http://schemas.openxmlformats.org/drawingml/2006/diagram" '
    'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><dgm:ptLst>'
    '<dgm:pt modelId="1"><dgm:t><a:bodyPr/><a:p><a:r><a:t>Encoder</a:t></a:r></a:p></dgm:t>'
    '</dgm:pt><dgm:pt modelId="2"><dgm:t><a:bodyPr/><a:p><a:r><a:t>Decoder</a:t></a:r></a:p>'
    "</dgm:t></dgm:pt></dgm:ptLst></dgm:dataModel>"
)


def test_smartart_text_comes_from_its_data_part(decks) -> None:
    prs = decks.new()
    prs.slides[0].shapes._spTree.append(
        decks.element(
            '<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="5" name="Diagram"/>'
            "<p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr>"
            '<p:xfrm><a:off x="0" y="0"/><a:ext cx="914400" cy="914400"/></p:xfrm><a:graphic>'
            '<a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/diagram">'
            '<dgm:relIds r:dm="rId90" r:lo="rId91" r:qs="rId92" r:cs="rId93"/>'
            "</a:graphicData></a:graphic></p:graphicFrame>"
        )
    )
    path = decks.save(prs, "smartart")
    rels = "ppt/slides/_rels/slide1.xml.rels"
    relationship = (
        b'<Relationship Id="rId90" Target="../diagrams/data1.xml" Type="http://schemas.'
        b'openxmlformats.org/officeDocument/2006/relationships/diagramData"/></Relationships>'
    )
    decks.rewrite(
        path,
        {
            rels: lambda b: b.replace(b"</Relationships>", relationship),
            "ppt/diagrams/data1.xml": DIAGRAM_DATA.encode(),
        },
    )
    smartart = decks.own(decks.tree_of(path), ObjectKind.SMARTART)[0]
    assert smartart.text == "Encoder\nDecoder"


def test_the_shown_alternate_is_the_one_libreoffice_renders(decks) -> None:
    """A Choice requiring an extension LibreOffice does not know falls back (its rule, kept)."""
    prs = decks.new()
    spTree = prs.slides[0].shapes._spTree
    box = (
        '<p:sp><p:nvSpPr><p:cNvPr id="{id}" name="S{id}"/><p:cNvSpPr/><p:nvPr/></p:nvSpPr>'
        '<p:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="9" cy="9"/></a:xfrm>'
        '<a:prstGeom prst="{geometry}"><a:avLst/></a:prstGeom></p:spPr></p:sp>'
    )
    for number, requires in enumerate(("p14", "x99")):
        spTree.append(
            decks.element(
                '<mc:AlternateContent xmlns:x99="urn:example:x99" '
                'xmlns:p14="http://schemas.microsoft.com/office/powerpoint/2010/main">'
                f'<mc:Choice Requires="{requires}">{box.format(id=10 + number, geometry="rect")}'
                f"</mc:Choice><mc:Fallback>{box.format(id=20 + number, geometry='ellipse')}"
                "</mc:Fallback></mc:AlternateContent>"
            )
        )
    tree = decks.tree_of(decks.save(prs, "alternates"))
    shown = {(o.id, o.alternate_branch) for o in tree.walk() if o.alternate_selected}
    assert shown == {(10, "choice"), (21, "fallback")}
    assert tree.counts()["auto_shapes"] == 2


def test_a_picture_filling_a_chart_is_found(decks) -> None:
    from pptx.opc.constants import RELATIONSHIP_TYPE as RT

    prs = decks.new()
    slide = prs.slides[0]
    data = CategoryChartData()
    data.categories = ["x"]
    data.add_series("s", (1.0,))
    frame = slide.shapes.add_chart(XL_CHART_TYPE.PIE, Emu(0), Emu(0), Emu(4 * E), Emu(3 * E), data)
    picture = decks.png_bytes(color=(9, 9, 9))
    image_part, _ = slide.part.get_or_add_image_part(io.BytesIO(picture))
    chart_part = frame.chart.part
    rid = chart_part.relate_to(image_part, RT.IMAGE)
    plot_area = chart_part._element.find(".//" + q("c:plotArea"))
    plot_area.append(decks.element(f"<c:spPr>{decks.blip_fill(rid)}</c:spPr>"))
    path = decks.save(prs, "chart-fill")
    chart = decks.own(decks.tree_of(path), ObjectKind.CHART)[0]
    sha = hashlib.sha256(picture).hexdigest()
    assert chart.image_fill and chart.image_sha256 == sha and chart.rect.w == 4 * E
    assert sha in {image.sha256 for image in embedded_images(path).values()}


def test_a_stray_placeholder_mark_in_the_layout_is_ignored(decks) -> None:
    """A ``p:ph`` directly under the layout's root names no shape; it once crashed the index."""
    prs = decks.new(slides=0)
    slide = prs.slides.add_slide(prs.slide_layouts[1])
    slide.shapes.title.text = "The title"
    slide.slide_layout._element.insert(0, decks.element("<p:ph/>"))
    result = inspect_structure(decks.save(prs, "stray-ph"))
    assert result.gate.passed, result.gate.detail
    assert [o.text for o in result.tree.walk() if o.placeholder == "title"] == ["The title"]
