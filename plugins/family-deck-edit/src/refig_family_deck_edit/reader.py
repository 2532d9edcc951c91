"""The one door to core's hardened OOXML reader (:mod:`refig.pptx`), so a change of toolkit is a
change here only."""

from __future__ import annotations

from refig.plugin import GateReason
from refig.pptx import (
    DEFAULT_LIMITS,
    Limits,
    ObjectKind,
    ObjectTree,
    Package,
    PackageError,
    SlideObject,
    fold_render,
    iter_slide_images,
    read_object_tree,
)

#: The namespaces of the parts the deck inspector reads beyond the object tree.
NS = {
    "p": "http://schemas.openxmlformats.org/presentationml/2006/main",
    "a": "http://schemas.openxmlformats.org/drawingml/2006/main",
    "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
    "mc": "http://schemas.openxmlformats.org/markup-compatibility/2006",
    "c": "http://schemas.openxmlformats.org/drawingml/2006/chart",
}


def q(prefixed: str) -> str:
    """``"a:blip"`` as lxml's ``{namespace}blip``."""
    prefix, _, local = prefixed.partition(":")
    return f"{{{NS[prefix]}}}{local}"


read_tree = read_object_tree

__all__ = [
    "DEFAULT_LIMITS",
    "NS",
    "GateReason",
    "Limits",
    "ObjectKind",
    "ObjectTree",
    "Package",
    "PackageError",
    "SlideObject",
    "fold_render",
    "iter_slide_images",
    "q",
    "read_tree",
]
