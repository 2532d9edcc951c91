"""Relationships out of the package: every kind found with its part and reason, the inert copy
holds none of them (web hyperlinks kept), linked pictures are raster placements, and real decks
with web hyperlinks are copied byte for byte."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from lxml import etree
from pptx import Presentation
from pptx.opc.constants import RELATIONSHIP_TYPE as RT
from pptx.oxml.ns import qn
from pptx.util import Emu
from refig_toolkit_pptx import Package, outside_links, raster_placements, write_inert_copy
from refig_toolkit_pptx.gate import inspect_structure
from refig_toolkit_pptx.links import INERT_TARGET

from .conftest import png_bytes

REAL = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "pptx-real"
SLIDE = "ppt/slides/slide1.xml"
OFFICE = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"

#: (type, target, external, expected reason or None when it stays)
RELATIONSHIPS = [
    (f"{OFFICE}/oleObject", "file:///etc/passwd", True, "external"),
    (f"{OFFICE}/font", "\\\\server\\share\\font.ttf", True, "external"),
    (f"{OFFICE}/attachedTemplate", "http://127.0.0.1:9/template.potx", True, "external"),
    (f"{OFFICE}/video", "../movie.mp4", True, "external"),
    (f"{OFFICE}/hyperlink", "file:///home/user/notes.txt", True, "external"),
    (f"{OFFICE}/image", "../../../ab/abcdef", False, "outside_package"),
    (f"{OFFICE}/hyperlink", "https://example.org/paper", True, None),
    (f"{OFFICE}/hyperlink", "mailto:someone@example.org", True, None),
]


def hostile(path: Path) -> Path:
    """A one-slide deck whose slide holds every relationship of ``RELATIONSHIPS``, and one
    full-slide picture linked to a host file."""
    prs = Presentation()
    prs.slide_width, prs.slide_height = Emu(12_192_000), Emu(6_858_000)
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    picture = slide.shapes.add_picture(
        io.BytesIO(png_bytes()), 0, 0, prs.slide_width, prs.slide_height
    )
    blip = picture._element.find(".//" + qn("a:blip"))
    slide.part.drop_rel(blip.attrib.pop(qn("r:embed")))
    blip.set(qn("r:link"), slide.part.relate_to("file:///srv/secret.png", RT.IMAGE, True))
    prs.save(path)
    with zipfile.ZipFile(path) as archive:
        parts = {name: archive.read(name) for name in archive.namelist()}
    rels = etree.fromstring(parts["ppt/slides/_rels/slide1.xml.rels"])
    for index, (kind, target, external, _) in enumerate(RELATIONSHIPS):
        element = etree.SubElement(
            rels,
            rels.tag.replace("Relationships", "Relationship"),
            Id=f"rIdX{index}",
            Type=kind,
            Target=target,
        )
        if external:
            element.set("TargetMode", "External")
    parts["ppt/slides/_rels/slide1.xml.rels"] = etree.tostring(rels)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    return path


def test_every_link_out_is_found_with_its_part_type_and_reason(tmp_path: Path) -> None:
    with Package.open(hostile(tmp_path / "deck.pptx")) as package:
        found = {
            (link.rel_id, link.part, link.type, link.target, link.reason)
            for link in outside_links(package)
            if link.rel_id.startswith("rIdX")
        }
        picture = [link for link in outside_links(package) if not link.rel_id.startswith("rIdX")]
    expected = {
        (f"rIdX{i}", SLIDE, kind.rsplit("/", 1)[-1], target, reason)
        for i, (kind, target, _, reason) in enumerate(RELATIONSHIPS)
        if reason
    }
    assert found == expected
    assert [(p.type, p.target, p.reason) for p in picture] == [
        ("image", "file:///srv/secret.png", "external")
    ]


def test_the_inert_copy_keeps_only_web_hyperlinks(tmp_path: Path) -> None:
    source = hostile(tmp_path / "deck.pptx")
    stripped = write_inert_copy(source, tmp_path / "inert.pptx")
    assert len(stripped) == 1 + sum(1 for *_, reason in RELATIONSHIPS if reason)
    with zipfile.ZipFile(tmp_path / "inert.pptx") as archive:
        rels = etree.fromstring(archive.read("ppt/slides/_rels/slide1.xml.rels"))
        assert archive.namelist() == zipfile.ZipFile(source).namelist()
    targets = {r.get("Id"): (r.get("Target"), r.get("TargetMode")) for r in rels}
    for index, (_, target, _, reason) in enumerate(RELATIONSHIPS):
        assert targets[f"rIdX{index}"] == ((INERT_TARGET, None) if reason else (target, "External"))
    with Package.open(tmp_path / "inert.pptx") as package:
        assert outside_links(package) == ()
    assert inspect_structure(tmp_path / "inert.pptx").gate.passed


def test_a_linked_picture_is_a_raster_placement(tmp_path: Path) -> None:
    structure = inspect_structure(hostile(tmp_path / "deck.pptx"))
    assert structure.gate.passed and structure.tree is not None
    [placement] = raster_placements(structure.tree)
    assert placement.sha256 == "link:file:///srv/secret.png" and placement.role == "picture"
    assert placement.rect is not None and placement.rect.w == 12_192_000
    assert len(structure.tree.external_links) == 7


def test_real_decks_with_web_hyperlinks_are_copied_as_they_are(tmp_path: Path) -> None:
    decks = sorted(REAL.glob("*.pptx")) if REAL.is_dir() else []
    if not decks:
        pytest.skip("no shared real decks")
    for deck in decks:
        assert write_inert_copy(deck, tmp_path / deck.name) == (), deck
        assert (tmp_path / deck.name).read_bytes() == deck.read_bytes()
