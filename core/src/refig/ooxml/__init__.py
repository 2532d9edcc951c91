"""Reading untrusted .pptx files: bounded zip access, a hardened XML parser and the object tree."""

from refig.ooxml.images import EmbeddedImage, embedded_images, iter_slide_images, slide_images
from refig.ooxml.limits import DEFAULT_LIMITS, Limits
from refig.ooxml.package import Package, PackageError, Relationship, SlideRef
from refig.ooxml.tree import read_tree

__all__ = [
    "DEFAULT_LIMITS",
    "EmbeddedImage",
    "Limits",
    "Package",
    "PackageError",
    "Relationship",
    "SlideRef",
    "embedded_images",
    "iter_slide_images",
    "read_tree",
    "slide_images",
]
