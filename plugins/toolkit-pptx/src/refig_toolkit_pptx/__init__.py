"""The PPTX toolkit the slide and deck families and the metric plugins share.

Every read of an untrusted .pptx is bounded (:class:`Limits`) and uses a hardened XML parser (no
entities, no network). The documented API:

- packages: :class:`Package` (``Package.open(path, limits)``, ``slides()``, parts and
  relationships), :class:`PackageError` (a typed gate reason), :class:`Limits`,
  :func:`rels_name` (where a part's relationships are);
- the object tree: :func:`read_object_tree` (``read_object_tree(package, slide_part)``) and its
  models :class:`ObjectTree`, :class:`SlideObject`, :class:`ObjectKind`, :class:`Rect`,
  :class:`Endpoint` (``ObjectTree.shown()`` walks what the slide paints); :func:`object_tree`
  (an artifact's tree, when its family's structure is one);
- the one-slide gate: :func:`inspect_structure`, :func:`fold_render`, :data:`INSPECTOR`;
- links out of the package: :func:`outside_links`, :func:`write_inert_copy`, :class:`ExternalLink`;
- embedded images and rasters: :func:`embedded_images`, :func:`iter_slide_images`,
  :func:`raster_placements`, :mod:`refig_toolkit_pptx.rasters`;
- slide text: :func:`native_text`, :func:`word_tokens`; line presets:
  :mod:`refig_toolkit_pptx.lines`;
- XML names: :data:`NS` (the OOXML namespaces by prefix) and :func:`q` (``"a:blip"`` as lxml's
  ``{namespace}blip``);
"""

from refig_toolkit_pptx.gate import INSPECTOR, Structure, fold_render, inspect_structure
from refig_toolkit_pptx.images import (
    EmbeddedImage,
    embedded_images,
    iter_slide_images,
    slide_images,
)
from refig_toolkit_pptx.limits import DEFAULT_LIMITS, Limits
from refig_toolkit_pptx.links import outside_links, write_inert_copy
from refig_toolkit_pptx.objects import (
    Endpoint,
    ExternalLink,
    ObjectKind,
    ObjectTree,
    Rect,
    SlideObject,
    object_tree,
)
from refig_toolkit_pptx.package import Package, PackageError, Relationship, SlideRef, rels_name
from refig_toolkit_pptx.rasters import RasterPlacement, SlideImage, raster_placements
from refig_toolkit_pptx.slide_text import native_text, word_tokens
from refig_toolkit_pptx.tree import read_tree
from refig_toolkit_pptx.xml import NS, q

read_object_tree = read_tree
"""``read_object_tree(package, slide_part) -> ObjectTree``: O(P) of one slide."""

__all__ = [
    "DEFAULT_LIMITS",
    "INSPECTOR",
    "NS",
    "EmbeddedImage",
    "Endpoint",
    "ExternalLink",
    "Limits",
    "ObjectKind",
    "ObjectTree",
    "Package",
    "PackageError",
    "RasterPlacement",
    "Rect",
    "Relationship",
    "SlideImage",
    "SlideObject",
    "SlideRef",
    "Structure",
    "embedded_images",
    "fold_render",
    "inspect_structure",
    "iter_slide_images",
    "native_text",
    "object_tree",
    "outside_links",
    "q",
    "raster_placements",
    "read_object_tree",
    "read_tree",
    "rels_name",
    "slide_images",
    "word_tokens",
    "write_inert_copy",
]
