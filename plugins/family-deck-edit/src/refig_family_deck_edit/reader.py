"""The one door to core's hardened OOXML reader (:mod:`refig_toolkit_pptx`), so a change of toolkit
is a change here only."""

from __future__ import annotations

from refig.plugin import GateReason
from refig_toolkit_pptx import (
    DEFAULT_LIMITS,
    NS,
    ExternalLink,
    Limits,
    ObjectKind,
    ObjectTree,
    Package,
    PackageError,
    SlideObject,
    fold_render,
    iter_slide_images,
    outside_links,
    q,
    read_object_tree,
)

read_tree = read_object_tree

__all__ = [
    "DEFAULT_LIMITS",
    "NS",
    "ExternalLink",
    "GateReason",
    "Limits",
    "ObjectKind",
    "ObjectTree",
    "Package",
    "PackageError",
    "SlideObject",
    "fold_render",
    "iter_slide_images",
    "outside_links",
    "q",
    "read_tree",
]
