"""The deck inspector: a whole-deck structure read with the hardened OOXML reader, and the deck
gate's structural half (opens within limits, holds at least one slide).

Each slide's objects come from core's object tree (geometry, kinds, groups, connectors, pictures,
``mc:AlternateContent``), joined with the detail :mod:`.details` reads from the same elements. The
join walks the shape tree in the object tree's own order, so the n-th element is the n-th object.
Nothing here raises on a bad file: every failure is a typed gate verdict.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from lxml import etree

from refig_family_deck_edit.details import (
    Links,
    chart,
    color,
    paragraphs,
    shape_details,
    table_cells,
)
from refig_family_deck_edit.embedded import media, smartart_nodes
from refig_family_deck_edit.reader import (
    DEFAULT_LIMITS,
    NS,
    GateReason,
    Limits,
    ObjectKind,
    Package,
    PackageError,
    SlideObject,
    iter_slide_images,
    outside_links,
    q,
    read_tree,
)
from refig_family_deck_edit.structure import (
    Chart,
    DeckObject,
    DeckStructure,
    Layout,
    Slide,
    Theme,
    Transition,
)

#: Stored with every inspection; bump when what the inspector reports changes.
INSPECTOR = "deck-ooxml/3"  # 3: the links out of the package, stripped before rendering
#: A deck over this many slides or objects is refused as ``too_large`` (PPTArena's largest
#: deck has well under 100 slides).
MAX_SLIDES = 2_000
MAX_DECK_OBJECTS = 200_000

NS_P14 = "http://schemas.microsoft.com/office/powerpoint/2010/main"
_SHAPES = {q(t) for t in ("p:sp", "p:cxnSp", "p:pic", "p:grpSp", "p:graphicFrame",
                          "p:contentPart")}
_ALTERNATE = q("mc:AlternateContent")
_BRANCHES = (q("mc:Choice"), q("mc:Fallback"))


@dataclass(frozen=True)
class DeckVerdict:
    """The structural gate (``passed``, ``reason``, ``detail``, ``slides``) and the structure."""

    passed: bool
    reason: GateReason | None
    detail: str
    slides: int | None
    structure: DeckStructure | None
    seconds: float


def _elements(container: etree._Element) -> list[etree._Element]:
    """Shape elements in the object tree's order: document order, both branches of every
    ``mc:AlternateContent``, a group before its children."""
    found: list[etree._Element] = []
    for element in container:
        if element.tag == _ALTERNATE:
            for branch in element:
                if branch.tag in _BRANCHES:
                    found += _elements(branch)
        elif element.tag in _SHAPES:
            found.append(element)
            if element.tag == q("p:grpSp"):
                found += _elements(element)
    return found


class _SlideReader:
    """Reads one slide of an opened package into a :class:`Slide`."""

    def __init__(self, package: Package, part: str):
        self.package = package
        self.part = part
        self.links = Links(package, part)

    def objects(self) -> tuple[DeckObject, ...]:
        tree = read_tree(self.package, self.part)
        root = self.package.xml(self.part)
        sp_tree = root.find(f"{q('p:cSld')}/{q('p:spTree')}")
        elements = iter(_elements(sp_tree) if sp_tree is not None else [])
        own = [obj for obj in tree.objects if obj.layer == "slide"]
        return tuple(obj for obj in (self._object(o, elements) for o in own) if obj is not None)

    def _object(self, obj: SlideObject, elements: Iterator[etree._Element]) -> DeckObject | None:
        element = next(elements)
        children = tuple(c for c in (self._object(child, elements) for child in obj.children)
                         if c is not None)
        if not obj.alternate_selected:
            return None
        rect = obj.rect
        fields = shape_details(element, self.links)
        if obj.kind == ObjectKind.TABLE:
            fields["cells"] = table_cells(element)
        elif obj.kind == ObjectKind.CHART:
            fields["chart"] = self._chart(element)
        elif obj.kind == ObjectKind.SMARTART:
            fields["smartart"] = smartart_nodes(self.package, self.part, element)
        elif obj.kind == ObjectKind.PICTURE and element.tag == q("p:pic"):
            fields["media"] = media(self.package, self.part, element)
        kind = fields["media"].kind if fields.get("media") else str(obj.kind)
        return DeckObject(
            id=obj.id, name=obj.name, kind=kind,
            x=round(rect.x) if rect else None, y=round(rect.y) if rect else None,
            w=round(rect.w) if rect else None, h=round(rect.h) if rect else None,
            rotation=round(obj.rotation, 3), z=obj.z, hidden=obj.hidden,
            placeholder=obj.placeholder, geometry=obj.geometry, text=obj.text,
            image_sha256=obj.image_sha256,
            start_id=obj.start.shape_id if obj.start else None,
            end_id=obj.end.shape_id if obj.end else None,
            children=children, **fields,
        )

    def _chart(self, frame: etree._Element) -> Chart | None:
        node = frame.find(f".//{q('c:chart')}")
        rel = self.package.rels(self.part).get(node.get(q("r:id"), "") if node is not None else "")
        if rel is None or rel.external or not self.package.has(rel.target):
            return None
        return chart(self.package.xml(rel.target))

    def notes(self) -> str:
        part = self.package.related(self.part, "/notesSlide")
        if part is None or not self.package.has(part):
            return ""
        texts = []
        for shape in self.package.xml(part).iter(q("p:sp")):
            ph = shape.find(f".//{q('p:ph')}")
            if ph is not None and ph.get("type") == "body":
                links = Links(self.package, part)
                texts += ["".join(r.text for r in p.runs)
                          for p in paragraphs(shape.find(q("p:txBody")), links)]
        return "\n".join(texts).strip()

    def transition(self) -> Transition | None:
        root = self.package.xml(self.part)
        node = root.find(q("p:transition"))
        if node is None:
            node = root.find(f"{q('mc:AlternateContent')}/{q('mc:Fallback')}/{q('p:transition')}")
        if node is None:
            return None
        effect = next((etree.QName(c).localname for c in node
                       if isinstance(c.tag, str) and c.tag != q("p:sndAc")), "none")
        advance = node.get("advTm")
        return Transition(effect=effect, speed=node.get("spd"),
                          advance_ms=int(advance) if advance and advance.isdigit() else None)

    def background(self) -> str | None:
        """The slide's own background: a colour, ``picture``, or ``theme:IDX``."""
        bg = self.package.xml(self.part).find(f"{q('p:cSld')}/{q('p:bg')}")
        if bg is None:
            return None
        props = bg.find(q("p:bgPr"))
        if props is not None:
            return "picture" if props.find(q("a:blipFill")) is not None else color(props)
        ref = bg.find(q("p:bgRef"))
        return f"theme:{ref.get('idx', '')}" if ref is not None else None

    def animations(self) -> int:
        timing = self.package.xml(self.part).find(q("p:timing"))
        if timing is None:
            return 0
        return sum(1 for node in timing.iter(q("p:cTn")) if node.get("presetClass"))

    def layout(self) -> str:
        part = self.package.related(self.part, "/slideLayout")
        return _part_name(self.package, part)


def _part_name(package: Package, part: str | None) -> str:
    if part is None or not package.has(part):
        return ""
    c_sld = package.xml(part).find(q("p:cSld"))
    return (c_sld.get("name", "") if c_sld is not None else "") or part


def _slide_ids(package: Package) -> list[int | None]:
    listing = package.xml(package.presentation_part).find(q("p:sldIdLst"))
    ids = []
    for entry in () if listing is None else listing.iter(q("p:sldId")):
        value = entry.get("id", "")
        ids.append(int(value) if value.isdigit() else None)
    return ids


def _listed(package: Package, part: str, listing: str, suffix: str) -> list[str]:
    """The parts ``part``'s id list (``p:sldMasterIdLst``, ``p:sldLayoutIdLst``) names, in the
    list's order: the relationships' order means nothing and changes when a tool re-saves."""
    rels = package.rels(part)
    node = package.xml(part).find(q(listing))
    found: list[str] = []
    for entry in () if node is None else node:
        rel = rels.get(entry.get(q("r:id")) or "") if isinstance(entry.tag, str) else None
        if rel is not None and rel.is_a(suffix) and not rel.external \
                and package.has(rel.target) and rel.target not in found:
            found.append(rel.target)
    return found


def _sections(package: Package) -> dict[int, str]:
    """Slide id -> section name, from the ``p14:sectionLst`` extension."""
    found: dict[int, str] = {}
    root = package.xml(package.presentation_part)
    for section in root.iter(f"{{{NS_P14}}}section"):
        for entry in section.iter(f"{{{NS_P14}}}sldId"):
            value = entry.get("id", "")
            if value.isdigit():
                found[int(value)] = section.get("name", "")
    return found


def _theme(package: Package, master: str | None) -> Theme:
    part = package.related(master, "/theme") if master else None
    if part is None or not package.has(part):
        return Theme()
    root = package.xml(part)
    colors = {}
    scheme = root.find(f".//{q('a:clrScheme')}")
    for slot in () if scheme is None else scheme:
        if not isinstance(slot.tag, str) or not len(slot):
            continue
        value = slot[0].get("val") if etree.QName(slot[0]).localname == "srgbClr" else (
            slot[0].get("lastClr") or slot[0].get("val"))
        colors[etree.QName(slot).localname] = "#" + (value or "").upper()
    major = root.find(f".//{q('a:majorFont')}/{q('a:latin')}")
    minor = root.find(f".//{q('a:minorFont')}/{q('a:latin')}")
    return Theme(name=root.get("name", ""), colors=colors,
                 major_font=major.get("typeface") if major is not None else None,
                 minor_font=minor.get("typeface") if minor is not None else None)


def read_deck(package: Package) -> DeckStructure:
    """The structure of an opened deck; limits breached raise :class:`PackageError`."""
    refs = package.slides()
    if len(refs) > MAX_SLIDES:
        raise PackageError(GateReason.TOO_LARGE,
                           f"{len(refs):,} slides, over the limit of {MAX_SLIDES:,}")
    width, height = package.slide_size()
    masters = _listed(package, package.presentation_part, "p:sldMasterIdLst", "/slideMaster")
    layouts = [Layout(part=layout, name=_part_name(package, layout),
                      master=_part_name(package, master))
               for master in masters
               for layout in _listed(package, master, "p:sldLayoutIdLst", "/slideLayout")]
    ids = _slide_ids(package)
    sections = _sections(package)
    slides, total = [], 0
    for index, ref in enumerate(refs, 1):
        reader = _SlideReader(package, ref.part)
        objects = reader.objects()
        total += len(objects)
        if total > MAX_DECK_OBJECTS:
            raise PackageError(GateReason.TOO_LARGE,
                               f"the deck has over {MAX_DECK_OBJECTS:,} objects")
        for _ in iter_slide_images(package, ref.part):
            pass  # reading each image's header refuses decompression bombs
        slide_id = ids[index - 1] if index - 1 < len(ids) else None
        slides.append(Slide(
            index=index, part=ref.part, slide_id=slide_id, hidden=ref.hidden,
            layout=reader.layout(), background=reader.background(),
            section=sections.get(slide_id) if slide_id else None,
            notes=reader.notes(), transition=reader.transition(),
            animations=reader.animations(), objects=objects,
        ))
    ordered_sections = tuple(dict.fromkeys(sections.values()))
    return DeckStructure(
        slide_width=width, slide_height=height, slides=tuple(slides),
        sections=ordered_sections, masters=tuple(_part_name(package, m) for m in masters),
        layouts=tuple(layouts), theme=_theme(package, masters[0] if masters else None),
        external_links=outside_links(package),
    )


def inspect_deck(path: Path | str, limits: Limits = DEFAULT_LIMITS) -> DeckVerdict:
    """Gate a deck structurally (opens, at least one slide) and read its structure."""
    started = time.monotonic()
    slides: int | None = None

    def verdict(reason: GateReason | None, detail: str,
                structure: DeckStructure | None = None) -> DeckVerdict:
        return DeckVerdict(reason is None, reason, detail, slides, structure,
                           time.monotonic() - started)

    try:
        with Package.open(path, limits) as package:
            slides = len(package.slides())
            if slides == 0:
                return verdict(GateReason.NO_SLIDES, "the presentation has no slide")
            structure = read_deck(package)
            hidden = sum(s.hidden for s in structure.slides)
            note = f"{hidden} hidden slide(s), rendered deliberately" if hidden else ""
            return verdict(None, note, structure)
    except PackageError as exc:
        return verdict(exc.reason, exc.detail)
    except RecursionError:
        return verdict(GateReason.CORRUPT, "the deck's XML nests too deeply")
    except MemoryError:
        return verdict(GateReason.TOO_LARGE, "reading the deck ran out of memory")
    except Exception as exc:  # the gate answers for any input; a crash would be a bug here
        return verdict(GateReason.CORRUPT, f"unreadable: {type(exc).__name__}: {exc}")


__all__ = ["INSPECTOR", "NS", "DeckVerdict", "inspect_deck", "read_deck"]
