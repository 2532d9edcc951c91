"""A hardened lxml parser for untrusted OOXML parts.

OOXML never needs a DTD, so any document type declaration is refused outright (that stops
billion-laughs and external entities before the parser sees them); the parser is also configured
to resolve no entity, touch no network and refuse huge or deeply nested trees.
"""

from __future__ import annotations

from lxml import etree

NS = {
    "p": "http://schemas.openxmlformats.org/presentationml/2006/main",
    "a": "http://schemas.openxmlformats.org/drawingml/2006/main",
    "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
    "mc": "http://schemas.openxmlformats.org/markup-compatibility/2006",
    "c": "http://schemas.openxmlformats.org/drawingml/2006/chart",
    "dgm": "http://schemas.openxmlformats.org/drawingml/2006/diagram",
    "pr": "http://schemas.openxmlformats.org/package/2006/relationships",
    "ct": "http://schemas.openxmlformats.org/package/2006/content-types",
}


def q(prefixed: str) -> str:
    """``"a:blip"`` as lxml's ``{namespace}blip``."""
    prefix, _, local = prefixed.partition(":")
    return f"{{{NS[prefix]}}}{local}"


class XmlError(ValueError):
    """A part that is not well-formed, or that declares a DTD."""


# "<!DOCTYPE" in the encodings an XML document may declare itself in.
_DOCTYPE_MARKERS = tuple(
    "<!DOCTYPE".encode(codec)
    for codec in ("utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be")
)


def _parser() -> etree.XMLParser:
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        huge_tree=False,
        load_dtd=False,
        dtd_validation=False,
        remove_blank_text=False,
        collect_ids=False,
    )


def parse(data: bytes) -> etree._Element:
    """Parse one part; raise :class:`XmlError` on a DTD or malformed XML."""
    if any(marker in data for marker in _DOCTYPE_MARKERS) or b"<!ENTITY" in data:
        raise XmlError("the part declares a DTD or entities, which OOXML never uses")
    try:
        root = etree.fromstring(data, parser=_parser())
    except etree.XMLSyntaxError as exc:
        raise XmlError(f"not well-formed XML: {exc}") from exc
    if root.getroottree().docinfo.doctype:
        raise XmlError("the part declares a DTD, which OOXML never uses")
    return root
