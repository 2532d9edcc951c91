"""The one door to core's hardened OOXML reader (``refig.ooxml`` today, ``refig.pptx`` once the
family API lands), so switching toolkits is a change here only."""

from __future__ import annotations

from refig.gate import fold_render
from refig.models import GateReason, ObjectKind, ObjectTree, SlideObject
from refig.ooxml import DEFAULT_LIMITS, Limits, Package, PackageError, read_tree
from refig.ooxml.images import iter_slide_images
from refig.ooxml.xml import NS, q

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
