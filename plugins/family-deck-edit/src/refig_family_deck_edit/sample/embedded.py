"""The SmartArt diagram and the video of a generated deck, written part by part (python-pptx
makes neither a diagram nor a trim): a process diagram whose data model holds one node per
step, with the drawing PowerPoint caches beside it (what LibreOffice renders), and a video with
its poster frame."""

from __future__ import annotations

import io
from collections.abc import Sequence
from xml.sax.saxutils import escape

from lxml import etree
from pptx.opc.constants import RELATIONSHIP_TYPE as RT
from pptx.opc.package import Part
from pptx.opc.packuri import PackURI
from pptx.util import Emu

DGM = "http://schemas.openxmlformats.org/drawingml/2006/diagram"
DSP = "http://schemas.microsoft.com/office/drawing/2008/diagram"
A = "http://schemas.openxmlformats.org/drawingml/2006/main"
P14 = "http://schemas.microsoft.com/office/powerpoint/2010/main"
P = "http://schemas.openxmlformats.org/presentationml/2006/main"
_CT = "application/vnd.openxmlformats-officedocument.drawingml.diagram"
_PARTS = (  # (part, content type, relationship type, root element)
    ("data", f"{_CT}Data+xml", RT.DIAGRAM_DATA, "dataModel"),
    ("layout", f"{_CT}Layout+xml", RT.DIAGRAM_LAYOUT, "layoutDef"),
    ("quickStyle", f"{_CT}Style+xml", RT.DIAGRAM_QUICK_STYLE, "styleDef"),
    ("colors", f"{_CT}Colors+xml", RT.DIAGRAM_COLORS, "colorsDef"),
)
_DRAWING = ("application/vnd.ms-office.drawingml.diagramDrawing+xml",
            "http://schemas.microsoft.com/office/2007/relationships/diagramDrawing")
LAYOUT_ID = "urn:microsoft.com/office/officeart/2005/8/layout/process1"
#: A tiny, fixed MP4 header: the generated video is never played, only embedded and trimmed.
VIDEO = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom\x00\x00\x00\x08free"


def _guid(n: int) -> str:
    return f"{{{n:08X}-0000-4000-8000-000000000000}}"


def _paragraph(text: str, centred: bool = False) -> str:
    align = '<a:pPr algn="ctr"/>' if centred else ""
    return f'<a:p>{align}<a:r><a:rPr lang="en-US"/><a:t>{escape(text)}</a:t></a:r></a:p>'


def _data(steps: Sequence[str], drawing_rid: str) -> str:
    points = [f'<dgm:pt modelId="{_guid(0)}" type="doc"><dgm:prSet/><dgm:spPr/><dgm:t>'
              f'<a:bodyPr/><a:p><a:endParaRPr lang="en-US"/></a:p></dgm:t></dgm:pt>']
    links = []
    for index, step in enumerate(steps, 1):
        points.append(f'<dgm:pt modelId="{_guid(index)}"><dgm:prSet/><dgm:spPr/><dgm:t>'
                      f'<a:bodyPr/>{_paragraph(step)}</dgm:t></dgm:pt>')
        links.append(f'<dgm:cxn modelId="{_guid(100 + index)}" srcId="{_guid(0)}" '
                     f'destId="{_guid(index)}" srcOrd="{index - 1}" destOrd="0"/>')
    return (f'<dgm:dataModel xmlns:dgm="{DGM}" xmlns:a="{A}"><dgm:ptLst>{"".join(points)}'
            f'</dgm:ptLst><dgm:cxnLst>{"".join(links)}</dgm:cxnLst><dgm:bg/><dgm:whole/>'
            f'<dgm:extLst><a:ext uri="http://schemas.microsoft.com/office/drawing/2008/diagram">'
            f'<dsp:dataModelExt xmlns:dsp="{DSP}" relId="{drawing_rid}" '
            f'minVer="http://schemas.openxmlformats.org/drawingml/2006/diagram"/></a:ext>'
            f'</dgm:extLst></dgm:dataModel>')


def _drawing(steps: Sequence[str], width: int, height: int) -> str:
    gap = width // (4 * len(steps))
    box = (width - gap * (len(steps) - 1)) // len(steps)
    shapes = []
    for index, step in enumerate(steps):
        shapes.append(
            f'<dsp:sp modelId="{_guid(200 + index)}"><dsp:nvSpPr><dsp:cNvPr id="0" name=""/>'
            f'<dsp:cNvSpPr/></dsp:nvSpPr><dsp:spPr><a:xfrm><a:off x="{index * (box + gap)}" '
            f'y="{height // 4}"/><a:ext cx="{box}" cy="{height // 2}"/></a:xfrm>'
            f'<a:prstGeom prst="roundRect"><a:avLst/></a:prstGeom><a:solidFill>'
            f'<a:srgbClr val="4472C4"/></a:solidFill></dsp:spPr><dsp:style><a:lnRef idx="0">'
            f'<a:scrgbClr r="0" g="0" b="0"/></a:lnRef><a:fillRef idx="1"><a:scrgbClr r="0" '
            f'g="0" b="0"/></a:fillRef><a:effectRef idx="0"><a:scrgbClr r="0" g="0" b="0"/>'
            f'</a:effectRef><a:fontRef idx="minor"><a:srgbClr val="FFFFFF"/></a:fontRef>'
            f'</dsp:style><dsp:txBody><a:bodyPr anchor="ctr"/><a:lstStyle/>'
            f'{_paragraph(step, centred=True)}'
            f'</dsp:txBody><dsp:txXfrm><a:off x="{index * (box + gap)}" y="{height // 4}"/>'
            f'<a:ext cx="{box}" cy="{height // 2}"/></dsp:txXfrm></dsp:sp>')
    return (f'<dsp:drawing xmlns:dsp="{DSP}" xmlns:dgm="{DGM}" xmlns:a="{A}"><dsp:spTree>'
            f'<dsp:nvGrpSpPr><dsp:cNvPr id="0" name=""/><dsp:cNvGrpSpPr/></dsp:nvGrpSpPr>'
            f'<dsp:grpSpPr/>{"".join(shapes)}</dsp:spTree></dsp:drawing>')


def _definition(root: str) -> str:
    inner = '<dgm:layoutNode name="diagram"/>' if root == "layoutDef" else ""
    return (f'<dgm:{root} xmlns:dgm="{DGM}" xmlns:a="{A}" uniqueId="{LAYOUT_ID}">{inner}'
            f'</dgm:{root}>')


def _part(slide, name: str, content_type: str, xml: str) -> Part:
    package = slide.part.package
    uri = PackURI(f"/ppt/diagrams/{name}{slide.part.partname.idx}.xml")
    return Part(uri, content_type, package, xml.encode("utf-8"))


def add_smartart(slide, name: str, steps: Sequence[str], x: int, y: int, w: int, h: int) -> str:
    """A process diagram of ``steps`` on ``slide``; returns the frame's name."""
    drawing = _part(slide, "drawing", _DRAWING[0], _drawing(steps, w, h))
    drawing_rid = slide.part.relate_to(drawing, _DRAWING[1])
    rids = {}
    for part, content_type, reltype, root in _PARTS:
        xml = _data(steps, drawing_rid) if part == "data" else _definition(root)
        rids[part] = slide.part.relate_to(_part(slide, part, content_type, xml), reltype)
    ids = [s.shape_id for s in slide.shapes]
    frame = etree.fromstring(
        f'<p:graphicFrame xmlns:p="{P}" '
        f'xmlns:a="{A}" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/'
        f'relationships"><p:nvGraphicFramePr><p:cNvPr id="{max(ids, default=1) + 1}" '
        f'name="{escape(name)}"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr>'
        f'<p:xfrm><a:off x="{x}" y="{y}"/><a:ext cx="{w}" cy="{h}"/></p:xfrm><a:graphic>'
        f'<a:graphicData uri="{DGM}"><dgm:relIds xmlns:dgm="{DGM}" r:dm="{rids["data"]}" '
        f'r:lo="{rids["layout"]}" r:qs="{rids["quickStyle"]}" r:cs="{rids["colors"]}"/>'
        f'</a:graphicData></a:graphic></p:graphicFrame>')
    slide.shapes._spTree.append(frame)
    return name


def _diagram_parts(slide, frame_name: str) -> tuple[Part, Part]:
    """The data model and drawing parts of the named diagram frame."""
    frame = next(s for s in slide.shapes if s.name == frame_name)._element
    ids = frame.find(f".//{{{DGM}}}relIds")
    data = slide.part.related_part(ids.get(
        "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}dm"))
    drawing = next(rel.target_part for rel in slide.part.rels.values()
                   if rel.reltype == _DRAWING[1])
    return data, drawing


def rename_smartart_node(slide, frame_name: str, old: str, new: str) -> None:
    """Rename one node, in the data model and in the cached drawing alike."""
    for part in _diagram_parts(slide, frame_name):
        before = f"<a:t>{escape(old)}</a:t>".encode()
        assert part.blob.count(before) == 1, (part.partname, old)
        part._blob = part.blob.replace(before, f"<a:t>{escape(new)}</a:t>".encode())


def add_video(slide, name: str, poster: bytes, x: int, y: int, w: int, h: int):
    """An embedded video with ``poster`` as its poster frame."""
    movie = slide.shapes.add_movie(io.BytesIO(VIDEO), Emu(x), Emu(y), Emu(w), Emu(h),
                                   poster_frame_image=io.BytesIO(poster), mime_type="video/mp4")
    movie.name = name
    return movie


def trim_media(shape, start_ms: int) -> None:
    """Trim the first ``start_ms`` milliseconds of a media object (``p14:trim st``)."""
    media = shape._element.find(f".//{{{P14}}}media")
    trim = etree.SubElement(media, f"{{{P14}}}trim")
    trim.set("st", str(start_ms))


def remove_media(slide, shape) -> None:
    """Delete a media object and the timing node that plays it."""
    spid = str(shape.shape_id)
    for target in list(slide._element.iter(f"{{{P}}}spTgt")):
        if target.get("spid") == spid:
            node = target.getparent().getparent().getparent()  # tgtEl, cMediaNode, p:video
            node.getparent().remove(node)
    timing = slide._element.find(f"{{{P}}}timing")
    if timing is not None and not any(timing.iter(f"{{{P}}}spTgt")):
        slide._element.remove(timing)  # nothing left to play
    shape._element.getparent().remove(shape._element)
