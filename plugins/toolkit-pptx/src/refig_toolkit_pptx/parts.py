"""Every XML part a renderer would read goes through the hardened parser before it renders.

The gate reads the parts the object tree needs; LibreOffice reads the others too (document
properties, themes, layouts, legacy VML), and an XML attack there (billion laughs, an external
entity) crashed it, so the verdict was ``render_failed`` where the file is ``corrupt``.
"""

from __future__ import annotations

from refig_toolkit_pptx.package import Package

#: Members parsed as XML: OOXML parts, relationships and legacy VML drawings.
XML_SUFFIXES = (".xml", ".rels", ".vml")


def check_xml_parts(package: Package) -> int:
    """Parse every XML member of ``package`` (raises ``PackageError``); return how many."""
    names = [n for n in package.part_names()
             if n.lower().endswith(XML_SUFFIXES) and not n.endswith("/")]
    for name in names:
        package.check_xml(name)
    return len(names)
