"""Relationships that reach outside the package, and a copy of the package with them made inert.

An OOXML part can point outside its zip: a picture, audio or video linked rather than embedded
(``r:link``, or ``r:embed`` through a ``TargetMode="External"`` relationship), an OLE object, a
font, an attached template, a ``file:`` hyperlink, or an internal target that climbs out of the
package (``../../x``). LibreOffice fetches linked graphics while it loads a deck (HTTP, ``file:``,
or a path beside the file), so an untrusted deck could make the renderer read host files or call
the network. :func:`outside_links` finds every such relationship in every ``.rels`` part;
:func:`write_inert_copy` writes the copy the renderer converts, each of those relationships
retargeted to a part the package does not hold. Web and mail hyperlinks (``http``, ``https``,
``mailto`` on a hyperlink relationship) stay: LibreOffice never fetches them while rendering.
"""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path
from urllib.parse import urlsplit

from lxml import etree

from refig_toolkit_pptx.limits import DEFAULT_LIMITS, Limits
from refig_toolkit_pptx.objects import ExternalLink, LinkReason
from refig_toolkit_pptx.package import Package, resolve_target
from refig_toolkit_pptx.xml import q

#: Hyperlink targets that stay: LibreOffice opens them only when a person clicks.
KEPT_HYPERLINK_SCHEMES = frozenset({"http", "https", "mailto"})
#: Where a stripped relationship points instead: a part no package holds, so nothing loads.
INERT_TARGET = "/refig-stripped-link"
_RELS = ".rels"


def _source_part(rels_part: str) -> str:
    """The part a ``.rels`` part describes (``ppt/slides/_rels/a.xml.rels`` -> ``a.xml``
    beside it)."""
    folder, name = rels_part.rsplit("/", 1) if "/" in rels_part else ("", rels_part)
    parent = folder[: -len("_rels")].rstrip("/") if folder.endswith("_rels") else folder
    base = name[: -len(_RELS)]
    return f"{parent}/{base}" if parent else base


def _reason(element: etree._Element, source: str) -> LinkReason | None:
    """Why this relationship must not reach the renderer, or None when it may stay."""
    target = element.get("Target", "")
    if element.get("TargetMode", "") == "External":
        scheme = urlsplit(target.strip()).scheme.lower()
        if element.get("Type", "").endswith("/hyperlink") and scheme in KEPT_HYPERLINK_SCHEMES:
            return None
        return "external"
    resolved = resolve_target(source, target)
    if resolved == ".." or resolved.startswith("../") or "\\" in target or ":" in target:
        return "outside_package"
    return None


def _scan(package: Package) -> dict[str, list[tuple[etree._Element, ExternalLink]]]:
    """The offending relationship elements by ``.rels`` part, each with its record."""
    found: dict[str, list[tuple[etree._Element, ExternalLink]]] = {}
    for name in package.part_names():
        if not name.lower().endswith(_RELS) or name.endswith("/"):
            continue
        source = _source_part(name)
        for element in package.xml(name).iter(q("pr:Relationship")):
            reason = _reason(element, source)
            if reason is None:
                continue
            link = ExternalLink(
                part=source,
                rel_id=element.get("Id", ""),
                type=element.get("Type", "").rsplit("/", 1)[-1],
                target=element.get("Target", "")[:2000],
                reason=reason,
            )
            found.setdefault(name, []).append((element, link))
    return found


def outside_links(package: Package) -> tuple[ExternalLink, ...]:
    """Every relationship of the package that reaches outside it (see the module docstring)."""
    return tuple(link for pairs in _scan(package).values() for _, link in pairs)


def write_inert_copy(
    source: Path, dest: Path, limits: Limits = DEFAULT_LIMITS
) -> tuple[ExternalLink, ...]:
    """Copy the package at ``source`` to ``dest`` with every outside link made inert; return
    them. A package with none is copied byte for byte. Raises :class:`PackageError` for a file
    that is not a readable package within ``limits`` (then nothing may render it)."""
    with Package.open(source, limits) as package:
        found = _scan(package)
        if not found:
            shutil.copyfile(source, dest)
            return ()
        with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as out:
            for name in package.part_names():
                data = package.read(name)  # within the limits, as every read of the package
                if name in found:
                    for element, _ in found[name]:
                        element.attrib.pop("TargetMode", None)
                        element.set("Target", INERT_TARGET)
                    data = etree.tostring(
                        package.xml(name), xml_declaration=True, encoding="UTF-8", standalone=True
                    )
                out.writestr(name, data)
        return tuple(link for pairs in found.values() for _, link in pairs)
