"""O(P): the native objects of a slide, read from its XML (never through python-pptx).

python-pptx hides shapes inside ``mc:AlternateContent``, calls every connector a line and SmartArt
``None``, and does not see pictures used as fills or backgrounds. This reader walks the shape tree
itself: both branches of every ``mc:AlternateContent`` (the branch a consumer shows is marked
``alternate_selected``), groups with their child transforms mapped into slide coordinates,
placeholders that inherit their geometry from the layout or master, the non-placeholder shapes the
layout and master paint behind the slide (``layer``), and the background picture wherever it is
inherited from.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from typing import Any

from lxml import etree
from refig.plugin import GateReason

from refig_toolkit_pptx.inherited import Inheritance, blip_link, blip_part
from refig_toolkit_pptx.objects import Endpoint, ObjectKind, ObjectTree, SlideObject
from refig_toolkit_pptx.package import REL_SLIDE_LAYOUT, REL_SLIDE_MASTER, Package, PackageError
from refig_toolkit_pptx.shape_xml import (
    flag,
    int_attr,
    line_style,
    paragraphs_text,
    point,
    rotation_of,
)
from refig_toolkit_pptx.transform import Transform
from refig_toolkit_pptx.xml import NS, q

URI_TABLE = "http://schemas.openxmlformats.org/drawingml/2006/table"
URI_CHART = "http://schemas.openxmlformats.org/drawingml/2006/chart"
URI_CHARTEX = "http://schemas.microsoft.com/office/drawing/2014/chartex"
URI_DIAGRAM = "http://schemas.openxmlformats.org/drawingml/2006/diagram"
URI_OLE = "http://schemas.openxmlformats.org/presentationml/2006/ole"
URI_PICTURE = "http://schemas.openxmlformats.org/drawingml/2006/picture"
NS_DSP = "http://schemas.microsoft.com/office/drawing/2008/diagram"

_FRAME_KINDS = {
    URI_TABLE: ObjectKind.TABLE,
    URI_CHART: ObjectKind.CHART,
    URI_CHARTEX: ObjectKind.CHART,
    URI_DIAGRAM: ObjectKind.SMARTART,
    URI_OLE: ObjectKind.OLE,
    URI_PICTURE: ObjectKind.PICTURE,
}

SP, CXN, PIC, GRP, FRAME = q("p:sp"), q("p:cxnSp"), q("p:pic"), q("p:grpSp"), q("p:graphicFrame")
CONTENT_PART, ALTERNATE = q("p:contentPart"), q("mc:AlternateContent")
CHOICE, FALLBACK = q("mc:Choice"), q("mc:Fallback")
SHAPE_TAGS = frozenset({SP, CXN, PIC, GRP, FRAME, CONTENT_PART, ALTERNATE})

# LibreOffice renders an ``mc:Choice`` only when its ``Requires`` is exactly one of these prefixes
# (oox FragmentHandler2::prepareMceContext), else the ``mc:Fallback``; the tree marks the same
# branch as shown so that what it counts is what the rendering shows.
SHOWN_REQUIRES = frozenset({"a14", "p14", "p15", "x12ac", "v"})

@dataclass(frozen=True)
class _Ctx:
    """Where a shape element sits: its part (for relationships), transform, layer and branch."""

    part: str
    transform: Transform = field(default_factory=Transform)
    layer: str = "slide"
    branch: str | None = None
    selected: bool = True


class TreeReader:
    """Reads the object tree of one slide of an opened package."""

    def __init__(self, package: Package, slide_part: str):
        self.package = package
        self.slide_part = slide_part
        self.layout_part = package.related(slide_part, REL_SLIDE_LAYOUT)
        self.master_part = (
            package.related(self.layout_part, REL_SLIDE_MASTER) if self.layout_part else None
        )
        self._count = 0
        self._z = 0
        self._images: dict[str, str] = {}
        self.inherited = Inheritance(package, slide_part, self.layout_part, self.master_part)

    # --- entry point ----------------------------------------------------------------------------

    def read(self) -> ObjectTree:
        """The slide's tree: inherited shapes first (negative z), then the slide's own."""
        width, height = self.package.slide_size()
        slide = self.package.xml(self.slide_part)
        inherited: list[SlideObject] = []
        show_master = slide.get("showMasterSp", "1") not in {"0", "false"}
        layout = self.inherited.root(self.layout_part)
        if show_master and layout is not None:
            master = self.inherited.root(self.master_part)
            if master is not None and layout.get("showMasterSp", "1") not in {"0", "false"}:
                inherited += self._tree_of(master, _Ctx(str(self.master_part), layer="master"))
            inherited += self._tree_of(layout, _Ctx(str(self.layout_part), layer="layout"))
        shift = -self._z  # inherited shapes paint first: z from -n to -1
        inherited = [_shift(obj, shift) for obj in inherited]
        self._z = 0
        own = self._tree_of(slide, _Ctx(self.slide_part))
        found = self.inherited.background()
        background = blip_part(self.package, *found) if found else None
        return ObjectTree(
            slide_width=width,
            slide_height=height,
            objects=(*inherited, *own),
            background_image_sha256=self._image_sha(background) if background else None,
            background_image_part=background,
            background_image_link=blip_link(self.package, *found) if found else None,
        )

    def _tree_of(self, root: etree._Element, ctx: _Ctx) -> list[SlideObject]:
        tree = root.find(f"{q('p:cSld')}/{q('p:spTree')}")
        if tree is None:
            return []
        objects = self._shapes(tree, ctx)
        if ctx.layer != "slide":
            objects = [o for o in objects if o.placeholder is None]
        return objects

    # --- shapes ---------------------------------------------------------------------------------

    def _shapes(self, container: etree._Element, ctx: _Ctx) -> list[SlideObject]:
        objects: list[SlideObject] = []
        for element in container:
            tag = element.tag
            if tag == ALTERNATE:
                objects += self._alternate(element, ctx)
            elif tag in SHAPE_TAGS:
                objects.append(self._object(element, ctx))
        return objects

    def _alternate(self, element: etree._Element, ctx: _Ctx) -> list[SlideObject]:
        """Both branches; the shown one is the branch LibreOffice renders (see SHOWN_REQUIRES)."""
        branches = [c for c in element if c.tag in (CHOICE, FALLBACK)]
        shown = next(
            (
                b
                for b in branches
                if b.tag == FALLBACK or b.get("Requires", "").strip() in SHOWN_REQUIRES
            ),
            None,
        )
        objects: list[SlideObject] = []
        for branch in branches:
            sub = replace(
                ctx,
                branch="choice" if branch.tag == CHOICE else "fallback",
                selected=ctx.selected and branch is shown,
            )
            objects += self._shapes(branch, sub)
        return objects

    def _object(self, element: etree._Element, ctx: _Ctx) -> SlideObject:
        self._count += 1
        if self._count > self.package.limits.max_objects:
            raise PackageError(
                GateReason.TOO_LARGE,
                f"the slide has over {self.package.limits.max_objects:,} objects",
                path=self.package.path,
            )
        z, self._z = self._z, self._z + 1
        nv = element[0] if len(element) else None
        c_nv = nv.find(q("p:cNvPr")) if nv is not None else None
        ph = nv.find(f"{q('p:nvPr')}/{q('p:ph')}") if nv is not None else None
        tag = element.tag
        fields: dict[str, Any] = {
            "z": z,  # paint order, depth first: a group before its children
            "id": int_attr(c_nv.get("id")) if c_nv is not None else None,
            "name": c_nv.get("name", "") if c_nv is not None else "",
            "hidden": flag(c_nv.get("hidden")) if c_nv is not None else False,
            "layer": ctx.layer,
            "in_alternate_content": ctx.branch is not None,
            "alternate_branch": ctx.branch,
            "alternate_selected": ctx.selected,
            "placeholder": (ph.get("type") or "obj") if ph is not None else None,
        }
        if tag == GRP:
            xfrm = element.find(f"{q('p:grpSpPr')}/{q('a:xfrm')}")
            fields |= self._geometry(xfrm, ctx)
            fields |= self._image(element.find(q("p:grpSpPr")), ctx, fill=True)
            inner = replace(ctx, transform=ctx.transform.into_group(xfrm))
            children = tuple(self._shapes(element, inner))
            return SlideObject(kind=ObjectKind.GROUP, children=children, **fields)
        if tag == FRAME:
            return self._frame(element, ctx, fields)
        if tag == CONTENT_PART:
            return SlideObject(kind=ObjectKind.OTHER, **fields)
        sp_pr = element.find(q("p:spPr"))
        xfrm = sp_pr.find(q("a:xfrm")) if sp_pr is not None else None
        inherited = (self.inherited.placeholder_xfrm(ph)
                     if ph is not None and ctx.layer == "slide" else None)
        fields |= self._geometry(inherited if xfrm is None else xfrm, ctx, inherited)
        prst = sp_pr.find(q("a:prstGeom")) if sp_pr is not None else None
        custom = sp_pr is not None and sp_pr.find(q("a:custGeom")) is not None
        fields["geometry"] = (
            "custom" if custom else (prst.get("prst") if prst is not None else None)
        )
        if tag == PIC:
            fields |= self._image(element.find(q("p:blipFill")), ctx, fill=False)
            return SlideObject(kind=ObjectKind.PICTURE, **fields)
        if tag == CXN:
            return self._connector(element, sp_pr, fields)
        fields |= self._image(element, ctx, fill=True)
        fields |= line_style(sp_pr)
        fields["text"] = paragraphs_text(element.find(q("p:txBody")))
        if ph is not None:
            kind = ObjectKind.PLACEHOLDER
        elif custom:
            kind = ObjectKind.FREEFORM
        elif flag(element.xpath("string(p:nvSpPr/p:cNvSpPr/@txBox)", namespaces=NS)):
            kind = ObjectKind.TEXT_BOX
        else:
            kind = ObjectKind.AUTO_SHAPE
        return SlideObject(kind=kind, **fields)

    def _geometry(self, xfrm: etree._Element | None, ctx: _Ctx,
                  inherited: etree._Element | None = None) -> dict[str, Any]:
        """Box, rotation and flips; a placeholder's partial ``a:xfrm`` (python-pptx writes only
        ``a:off`` when a script moves an inherited placeholder) takes the rest from
        ``inherited``, the layout's or master's."""
        if xfrm is None:
            rotation, flip_h, flip_v = ctx.transform.orient(0.0, False, False)
            return {"rotation": rotation, "flip_h": flip_h, "flip_v": flip_v}
        off, ext = point(xfrm, "a:off", "x", "y"), point(xfrm, "a:ext", "cx", "cy")
        if inherited is not None:
            off = off or point(inherited, "a:off", "x", "y")
            ext = ext or point(inherited, "a:ext", "cx", "cy")
        rotation, flip_h, flip_v = ctx.transform.orient(
            rotation_of(xfrm), flag(xfrm.get("flipH")), flag(xfrm.get("flipV"))
        )
        return {
            "rect": ctx.transform.rect(*off, *ext) if off and ext else None,
            "rotation": rotation,
            "flip_h": flip_h,
            "flip_v": flip_v,
        }

    def _connector(
        self, element: etree._Element, sp_pr: etree._Element | None, fields: dict[str, Any]
    ) -> SlideObject:
        props = element.find(f"{q('p:nvCxnSpPr')}/{q('p:cNvCxnSpPr')}")
        ends: dict[str, Endpoint | None] = {"start": None, "end": None}
        for key, tag in (("start", "a:stCxn"), ("end", "a:endCxn")):
            node = props.find(q(tag)) if props is not None else None
            if node is None:
                continue
            shape_id = int_attr(node.get("id"))
            if shape_id is not None:
                ends[key] = Endpoint(shape_id=shape_id, site=int_attr(node.get("idx")) or 0)
        fields |= line_style(sp_pr)
        return SlideObject(kind=ObjectKind.CONNECTOR, start=ends["start"], end=ends["end"],
                           **fields)

    def _frame(self, element: etree._Element, ctx: _Ctx, fields: dict[str, Any]) -> SlideObject:
        fields |= self._geometry(element.find(q("p:xfrm")), ctx)
        data = element.find(f"{q('a:graphic')}/{q('a:graphicData')}")
        uri = data.get("uri", "") if data is not None else ""
        kind = _FRAME_KINDS.get(uri, ObjectKind.OTHER)
        text = ""
        fields |= self._image(element, ctx, fill=kind != ObjectKind.PICTURE)
        if data is not None and kind == ObjectKind.TABLE:
            rows = []
            for row in data.iter(q("a:tr")):
                cells = [paragraphs_text(c.find(q("a:txBody"))) for c in row.iter(q("a:tc"))]
                rows.append("\t".join(cells))
            text = "\n".join(rows).strip()
        elif data is not None and kind in (ObjectKind.SMARTART, ObjectKind.CHART):
            parts = self._frame_parts(ctx.part, data, kind)
            text = "\n".join(filter(None, (_part_strings(root) for _, root in parts[:1])))
            for part, root in parts:  # a picture fill inside the chart or diagram paints here
                if "image_part" not in fields and "image_link" not in fields:
                    fields |= self._image(root, replace(ctx, part=part), fill=True)
        return SlideObject(kind=kind, text=text, **fields)

    def _frame_parts(
        self, source: str, data: etree._Element, kind: ObjectKind
    ) -> list[tuple[str, etree._Element]]:
        """The parts a chart or SmartArt frame draws from: the chart part, or the diagram's data
        part and the drawing part its ``dsp:dataModelExt`` names."""
        rid = None
        if kind == ObjectKind.SMARTART:
            ids = data.find(q("dgm:relIds"))
            rid = ids.get(q("r:dm")) if ids is not None else None
        else:
            chart = next((c for c in data if c.get(q("r:id"))), None)
            rid = chart.get(q("r:id")) if chart is not None else None
        parts: list[tuple[str, etree._Element]] = []
        for _ in range(2):
            rel = self.package.rels(source).get(rid or "")
            if rel is None or rel.external or not self.package.has(rel.target):
                break
            root = self.package.xml(rel.target)
            parts.append((rel.target, root))
            extension = root.find(f".//{{{NS_DSP}}}dataModelExt")
            rid = extension.get("relId") if extension is not None else None
        return parts

    # --- images ---------------------------------------------------------------------------------

    def _image(self, element: etree._Element | None, ctx: _Ctx, *, fill: bool) -> dict[str, Any]:
        """The first picture under ``element``, embedded or linked (a linked one paints too)."""
        if element is None:
            return {}
        for blip in element.iter(q("a:blip")):
            part = blip_part(self.package, ctx.part, blip)
            if part is not None:
                return {
                    "image_part": part,
                    "image_sha256": self._image_sha(part),
                    "image_fill": fill,
                }
            link = blip_link(self.package, ctx.part, blip)
            if link is not None:
                return {"image_link": link, "image_fill": fill}
        return {}

    def _image_sha(self, part: str) -> str:
        """The sha256 of an image part's bytes, read once per part."""
        if part not in self._images:
            data = self.package.read(part)
            self._images[part] = hashlib.sha256(data).hexdigest()
        return self._images[part]


def _part_strings(root: etree._Element) -> str:
    """The visible strings of a chart or SmartArt data part (``a:t`` and cached ``c:v``)."""
    strings = [t.text for t in root.iter(q("a:t")) if t.text]
    strings += [v.text for v in root.iterfind(".//c:strCache/c:pt/c:v", NS) if v.text]
    return "\n".join(strings)


def _shift(obj: SlideObject, by: int) -> SlideObject:
    """``obj`` and its children with ``z`` moved by ``by``."""
    children = tuple(_shift(child, by) for child in obj.children)
    return obj.model_copy(update={"z": obj.z + by, "children": children})


def read_tree(package: Package, slide_part: str) -> ObjectTree:
    """The object tree of ``slide_part``; limits breached raise :class:`PackageError`."""
    return TreeReader(package, slide_part).read()
