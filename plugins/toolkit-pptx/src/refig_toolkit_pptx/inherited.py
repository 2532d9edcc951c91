"""What a slide inherits from its layout, master and theme: placeholder geometry and background.

A slide placeholder without its own ``a:xfrm`` takes the layout's (by idx, else type), else the
master's (by type); the background picture comes from the first of slide, layout and master
that sets one, or from the theme's background fill styles.
"""

from __future__ import annotations

from dataclasses import dataclass

from lxml import etree

from refig_toolkit_pptx.package import REL_THEME, Package
from refig_toolkit_pptx.shape_xml import int_attr
from refig_toolkit_pptx.xml import q

# Placeholder types a master matches by (a layout's ``ctrTitle`` inherits the master's title).
MASTER_TYPE = {"ctrTitle": "title", "subTitle": "body", "obj": "body"}

Placeholder = tuple[str, etree._Element | None]  # (type, a:xfrm)


def blip_part(package: Package, source: str, blip: etree._Element) -> str | None:
    """The package part an ``a:blip`` in ``source`` embeds, or None (external or missing)."""
    rid = blip.get(q("r:embed"))
    rel = package.rels(source).get(rid or "")
    if rel is None or rel.external or not package.has(rel.target):
        return None
    return rel.target


def blip_link(package: Package, source: str, blip: etree._Element) -> str | None:
    """The target an ``a:blip`` in ``source`` links to rather than embeds, or None: its
    ``r:link``, or an ``r:embed`` whose relationship is external or climbs out of the package."""
    rels = package.rels(source)
    linked = rels.get(blip.get(q("r:link")) or "")
    if linked is not None:
        return linked.target
    embedded = rels.get(blip.get(q("r:embed")) or "")
    if embedded is not None and (embedded.external or embedded.target.startswith("..")):
        return embedded.target
    return None


@dataclass(frozen=True)
class Placeholders:
    """The placeholders of a layout or master, indexed once (lookups stay O(1) on any input)."""

    by_idx: dict[str, Placeholder]
    by_type: dict[str, Placeholder]
    by_master_type: dict[str, Placeholder]

    @classmethod
    def of(cls, root: etree._Element | None) -> Placeholders:
        index = cls({}, {}, {})
        for ph in () if root is None else root.iter(q("p:ph")):
            shape = ph
            for _ in range(3):  # p:ph < p:nvPr < p:nvSpPr (or another nv*Pr) < the shape
                shape = shape.getparent() if shape is not None else None
            if shape is None:  # a stray p:ph too near the root names no shape
                continue
            xfrm = shape.find(f"{q('p:spPr')}/{q('a:xfrm')}")
            if xfrm is None:
                xfrm = shape.find(q("p:xfrm"))
            ph_type = ph.get("type") or "obj"
            entry = (ph_type, xfrm)
            if ph.get("idx") is not None:
                index.by_idx.setdefault(ph.get("idx", ""), entry)
            index.by_type.setdefault(ph_type, entry)
            index.by_master_type.setdefault(MASTER_TYPE.get(ph_type, ph_type), entry)
        return index


class Inheritance:
    """The layout and master of one slide, read for what the slide inherits from them."""

    def __init__(self, package: Package, slide_part: str, layout_part: str | None,
                 master_part: str | None):
        self.package = package
        self.slide_part = slide_part
        self.layout_part = layout_part
        self.master_part = master_part
        self._ph: dict[str, Placeholders] = {}

    def root(self, part: str | None) -> etree._Element | None:
        """The parsed XML of ``part``, or None when there is no such part."""
        return self.package.xml(part) if part and self.package.has(part) else None

    def placeholder_xfrm(self, ph: etree._Element) -> etree._Element | None:
        """The ``a:xfrm`` a slide placeholder inherits: the layout's (by idx, else type), else the
        master's (by type)."""
        ph_type, ph_idx = ph.get("type") or "obj", ph.get("idx")
        layout = self._placeholders(self.layout_part)
        match = (layout.by_idx.get(ph_idx) if ph_idx is not None else None) or layout.by_type.get(
            ph_type
        )
        if match is not None:
            if match[1] is not None:
                return match[1]
            ph_type = match[0]
        return self._placeholders(self.master_part).by_master_type.get(
            MASTER_TYPE.get(ph_type, ph_type), (None, None)
        )[1]

    def _placeholders(self, part: str | None) -> Placeholders:
        key = part or ""
        if key not in self._ph:
            self._ph[key] = Placeholders.of(self.root(part))
        return self._ph[key]

    def background(self) -> tuple[str, etree._Element] | None:
        """The ``a:blip`` painting the slide background, from the slide, layout, master or
        theme, with the part whose relationships it uses."""
        for part in (self.slide_part, self.layout_part, self.master_part):
            root = self.root(part)
            if root is None or part is None:
                continue
            bg = root.find(f"{q('p:cSld')}/{q('p:bg')}")
            if bg is None:
                continue
            props = bg.find(q("p:bgPr"))
            if props is not None:
                blip = props.find(f"{q('a:blipFill')}/{q('a:blip')}")
                return (part, blip) if blip is not None else None
            ref = bg.find(q("p:bgRef"))
            return self._theme_background(int_attr(ref.get("idx")) if ref is not None else None)
        return None

    def _theme_background(self, idx: int | None) -> tuple[str, etree._Element] | None:
        """``p:bgRef idx >= 1001`` picks the theme's background fill style ``idx - 1001``."""
        theme = self.package.related(self.master_part, REL_THEME) if self.master_part else None
        root = self.root(theme)
        if root is None or theme is None or idx is None or idx < 1001:
            return None
        styles = root.find(f".//{q('a:bgFillStyleLst')}")
        if styles is None or idx - 1001 >= len(styles):
            return None
        blip = styles[idx - 1001].find(q("a:blip"))
        return (theme, blip) if blip is not None else None
