"""The probe deck: copies of an artifact's slides, each edited by one probe, as one .pptx.

Every variant is a slide of one presentation so one conversion renders them all: the probes cost
about one more render per artifact, not one per probe. The first copy of each probed slide is left
unedited, so the checks compare renderings made by the same conversion.

Every shape of every variant is drawn without its effects (shadow, glow, soft edge,
reflection): LibreOffice draws a blurred effect into a bitmap shape by shape, and a theme's shadow
under every box was about 85% of a probe deck's PDF export (docs/performance.md, "Effects left out
of the probe decks"). The unedited copy loses them too, so every check compares like with like.
The deck is written uncompressed: LibreOffice reads it once.
"""

from __future__ import annotations

import posixpath
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from lxml import etree
from refig_toolkit_pptx import Package, q

REL_NS = "http://schemas.openxmlformats.org/package/2006/relationships"
CT_NS = "http://schemas.openxmlformats.org/package/2006/content-types"
REL_SLIDE = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide"
SLIDE_TYPE = "application/vnd.openxmlformats-officedocument.presentationml.slide+xml"
#: Relationships a copied slide drops: they point back at the one slide they belong to.
DROPPED_RELS = ("/notesSlide", "/comments", "/commentAuthors")
#: Shapes whose effects a probe deck leaves out (a graphic frame has none).
EFFECT_SHAPES = tuple(q(tag) for tag in ("p:sp", "p:cxnSp", "p:pic", "p:grpSp"))
#: What may follow ``a:effectLst`` in a shape's properties, in the schema's order.
AFTER_EFFECTS = tuple(q(tag) for tag in ("a:scene3d", "a:sp3d", "a:extLst"))


@dataclass(frozen=True)
class Variant:
    """One slide of the probe deck: the slide part it copies and its edited XML."""

    source_part: str
    xml: etree._Element


def _serialise(root: etree._Element) -> bytes:
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)


def _slide_rels(package: Package, part: str) -> bytes:
    """The slide's relationships without those that belong to it alone (notes, comments)."""
    root = etree.Element(f"{{{REL_NS}}}Relationships", nsmap={None: REL_NS})
    for rel in package.rels(part).values():
        if rel.type.endswith(DROPPED_RELS):
            continue
        target = (
            rel.target if rel.external else posixpath.relpath(rel.target, posixpath.dirname(part))
        )
        attributes = {"Id": rel.id, "Type": rel.type, "Target": target}
        if rel.external:
            attributes["TargetMode"] = "External"
        etree.SubElement(root, f"{{{REL_NS}}}Relationship", attributes)
    return _serialise(root)


def drop_effects(slide: etree._Element) -> None:
    """Draw every shape of ``slide`` without effects: an empty effect list (which overrides a
    style's, a placeholder's or a theme's) and no style effect."""
    for shape in slide.iter(*EFFECT_SHAPES):
        for ref in shape.iterfind(f"{q('p:style')}/{q('a:effectRef')}"):
            ref.set("idx", "0")
        props = shape.find(q("p:grpSpPr" if shape.tag == q("p:grpSp") else "p:spPr"))
        if props is None:
            continue
        for effects in props.findall(q("a:effectLst")) + props.findall(q("a:effectDag")):
            props.remove(effects)
        empty = etree.Element(q("a:effectLst"))
        later = next((child for child in props if child.tag in AFTER_EFFECTS), None)
        if later is None:
            props.append(empty)
        else:
            later.addprevious(empty)


def write_probe_deck(package: Package, variants: Sequence[Variant], out: Path) -> Path:
    """Write a deck whose slides are ``variants`` in order (every other slide left out)."""
    presentation = package.presentation_part
    pres_rels_name = posixpath.join(
        posixpath.dirname(presentation), "_rels", posixpath.basename(presentation) + ".rels"
    )
    pres_xml = etree.fromstring(etree.tostring(package.xml(presentation)))
    rels_xml = etree.fromstring(etree.tostring(package.xml(pres_rels_name)))
    types_xml = etree.fromstring(etree.tostring(package.xml("[Content_Types].xml")))
    listing = pres_xml.find(q("p:sldIdLst"))
    if listing is None:
        listing = etree.Element(q("p:sldIdLst"))
        pres_xml.insert(1, listing)
    for entry in list(listing):
        listing.remove(entry)
    added: dict[str, bytes] = {}
    for index, variant in enumerate(variants, start=1):
        folder = posixpath.dirname(variant.source_part)
        name = posixpath.join(folder, f"refigprobe{index}.xml")
        rid = f"rIdRefigProbe{index}"
        etree.SubElement(
            rels_xml,
            f"{{{REL_NS}}}Relationship",
            Id=rid,
            Type=REL_SLIDE,
            Target=posixpath.relpath(name, posixpath.dirname(presentation)),
        )
        entry = etree.SubElement(listing, q("p:sldId"))
        entry.set("id", str(0x7FFF0000 + index))
        entry.set(q("r:id"), rid)
        etree.SubElement(
            types_xml, f"{{{CT_NS}}}Override", PartName="/" + name, ContentType=SLIDE_TYPE
        )
        slide = variant.xml
        slide.attrib.pop("show", None)  # a hidden slide's copies are shown
        drop_effects(slide)
        added[name] = _serialise(slide)
        added[posixpath.join(folder, "_rels", f"refigprobe{index}.xml.rels")] = _slide_rels(
            package, variant.source_part
        )
    replaced = {
        presentation: _serialise(pres_xml),
        pres_rels_name: _serialise(rels_xml),
        "[Content_Types].xml": _serialise(types_xml),
    }
    written = {name.lower() for name in (replaced | added)}
    # The gate bounded these members' sizes; they are copied as they are.
    with (
        zipfile.ZipFile(package.path) as source,
        zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as deck,
    ):
        for info in source.infolist():
            if info.filename.lower() not in written:
                deck.writestr(info.filename, source.read(info))
        for name, data in (replaced | added).items():
            deck.writestr(name, data)
    return out
