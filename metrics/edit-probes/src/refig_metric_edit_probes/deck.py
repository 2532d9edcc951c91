"""The probe deck: copies of artifacts' slides, each edited by one probe, as one .pptx.

Every variant is a slide of one presentation so one conversion renders them all: the probes cost
about one more render per artifact, not one per probe. The first copy of each probed slide is left
unedited, so the checks compare renderings made by the same conversion. Artifacts whose packages
give their slides the same context (:func:`context_digest`: masters, layouts, theme, slide size)
share one deck, their pictures renamed apart, so a group pays LibreOffice's cost of opening and
exporting a document once.

Every shape of every variant is drawn without its effects (shadow, glow, soft edge,
reflection): LibreOffice draws a blurred effect into a bitmap shape by shape, and a theme's shadow
under every box was about 85% of a probe deck's PDF export (docs/performance.md, "Effects left out
of the probe decks"). The unedited copy loses them too, so every check compares like with like.
The deck is written uncompressed: LibreOffice reads it once.
"""

from __future__ import annotations

import hashlib
import posixpath
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from lxml import etree
from refig_toolkit_pptx import Package, Relationship, q, rels_name

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
#: The folder of the pictures a slide may bring into another artifact's deck (renamed).
MEDIA = "ppt/media/"
#: Parts that belong to slides, not to the context they are rendered in.
OWN = ("ppt/slides/", "ppt/notesslides/", "ppt/comments/", MEDIA, "docprops/")


@dataclass(frozen=True)
class Variant:
    """One slide of the probe deck: the slide part it copies and its edited XML."""

    source_part: str
    xml: etree._Element


def _serialise(root: etree._Element) -> bytes:
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)


def _kept(package: Package, part: str) -> list[Relationship]:
    """The slide's relationships without those that belong to it alone (notes, comments)."""
    return [rel for rel in package.rels(part).values() if not rel.type.endswith(DROPPED_RELS)]


def _is_picture(package: Package, target: str) -> bool:
    """A part a slide may take into another deck under a new name: media with no parts of its
    own."""
    return target.lower().startswith(MEDIA) and not package.has(rels_name(target))


def context_digest(package: Package, parts: Sequence[str]) -> str | None:
    """A digest of everything the slides ``parts`` take from their package besides themselves
    and their pictures: every part outside the slides' own folders byte for byte (masters,
    layouts, themes and what they show), the presentation part without its slide list and its
    relationships but those to slides. Slides of packages with the same digest render in one
    deck as in their own. None when a slide relates to another part of its own (a chart, an
    embedded object, another slide), which only its own package holds."""
    for part in parts:
        for rel in _kept(package, part):
            if not rel.external and rel.target.lower().startswith(OWN) and not _is_picture(
                package, rel.target
            ):
                return None
    presentation = package.presentation_part
    skipped = {presentation.lower(), rels_name(presentation).lower(), "[content_types].xml"}
    digest = hashlib.sha256()
    pres_xml = etree.fromstring(etree.tostring(package.xml(presentation)))
    for listing in pres_xml.findall(q("p:sldIdLst")):
        pres_xml.remove(listing)
    digest.update(etree.tostring(pres_xml, method="c14n"))
    for rel in sorted(package.rels(presentation).values(), key=lambda r: r.id):
        if not rel.is_a("/slide"):
            digest.update(repr((rel.id, rel.type, rel.target, rel.external)).encode())
    for name in sorted(package.part_names()):
        if name.lower() in skipped or name.lower().startswith(OWN):
            continue
        data = package.read(name)
        digest.update(repr((name, package.content_type(name), len(data))).encode() + data)
        if name.endswith(".rels"):  # the pictures the context shows are part of it
            source = posixpath.join(posixpath.dirname(posixpath.dirname(name)),
                                    posixpath.basename(name)[: -len(".rels")])
            for rel in package.rels(source).values():
                if not rel.external and rel.target.lower().startswith(MEDIA):
                    picture = package.read(rel.target)
                    digest.update(repr((rel.target, len(picture))).encode() + picture)
    return digest.hexdigest()


def _slide_rels(package: Package, part: str, renamed: Mapping[str, str]) -> bytes:
    """The slide's kept relationships, its pictures' targets ``renamed``."""
    root = etree.Element(f"{{{REL_NS}}}Relationships", nsmap={None: REL_NS})
    for rel in _kept(package, part):
        target = (
            rel.target
            if rel.external
            else posixpath.relpath(renamed.get(rel.target, rel.target), posixpath.dirname(part))
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


def write_probe_deck(
    sources: Sequence[tuple[Package, Sequence[Variant]]], out: Path
) -> Path:
    """Write a deck whose slides are each source's variants in order (every other slide left
    out). The first package gives the deck everything but its slides; the others must have its
    :func:`context_digest`, and their variants' pictures are copied in under new names."""
    package = sources[0][0]
    presentation = package.presentation_part
    pres_rels_name = rels_name(presentation)
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

    def add_part(name: str, data: bytes, content_type: str) -> None:
        added[name] = data
        if package.content_type(name) != content_type:
            etree.SubElement(
                types_xml, f"{{{CT_NS}}}Override", PartName="/" + name, ContentType=content_type
            )

    index = 0
    for number, (owner, variants) in enumerate(sources):
        renamed: dict[str, str] = {}
        if owner is not package:
            for part in {v.source_part for v in variants}:
                for rel in _kept(owner, part):
                    if not rel.external and _is_picture(owner, rel.target):
                        new = f"{MEDIA}refigprobe{number}-{posixpath.basename(rel.target)}"
                        if new not in added:
                            add_part(new, owner.read(rel.target), owner.content_type(rel.target))
                        renamed[rel.target] = new
        for variant in variants:
            index += 1
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
            slide = variant.xml
            slide.attrib.pop("show", None)  # a hidden slide's copies are shown
            drop_effects(slide)
            add_part(name, _serialise(slide), SLIDE_TYPE)
            added[rels_name(name)] = _slide_rels(owner, variant.source_part, renamed)
    replaced = {
        presentation: _serialise(pres_xml),
        pres_rels_name: _serialise(rels_xml),
        "[Content_Types].xml": _serialise(types_xml),
    }
    written = {name.lower() for name in (replaced | added)}
    # The gate bounded these members' sizes; they are copied as they are, stored, not
    # compressed again (the office reads them once).
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
