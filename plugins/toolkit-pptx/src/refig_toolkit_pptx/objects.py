"""The object tree of a slide, O(P): every native object read from the slide XML.

This is the typed structure of the figure-to-slide family (``Inspection.structure`` holds it
dumped) and what the deck family reads per slide; metrics and judges walk it.
"""

from __future__ import annotations

from collections.abc import Iterator
from enum import StrEnum
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

if TYPE_CHECKING:
    from refig.plugin import Artifact


class Record(BaseModel):
    """Base of the tree's models: immutable, and strict about unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class ObjectKind(StrEnum):
    """Native object kinds read from the slide XML."""

    TEXT_BOX = "text_box"
    AUTO_SHAPE = "auto_shape"
    CONNECTOR = "connector"
    FREEFORM = "freeform"
    GROUP = "group"
    PICTURE = "picture"
    TABLE = "table"
    CHART = "chart"
    SMARTART = "smartart"
    PLACEHOLDER = "placeholder"
    OLE = "ole"
    OTHER = "other"


#: Why a relationship is stripped before rendering: ``external`` (``TargetMode="External"``,
#: anything but a web or mail hyperlink) or ``outside_package`` (a target that climbs out of it).
LinkReason = Literal["external", "outside_package"]


class ExternalLink(Record):
    """A relationship that reaches outside the package, made inert before any render."""

    #: The part whose relationship it is (``ppt/slides/slide1.xml``).
    part: str
    rel_id: str
    #: The relationship type's last segment (``image``, ``oleObject``, ``hyperlink``...).
    type: str
    #: The target as written (cut at 2,000 characters).
    target: str
    reason: LinkReason


class Rect(Record):
    """An axis-aligned box in slide coordinates (EMU), before rotation."""

    x: float
    y: float
    w: float
    h: float


class Endpoint(Record):
    """A connector end bound to a shape's connection site (``a:stCxn``/``a:endCxn``)."""

    shape_id: int
    site: int


class SlideObject(Record):
    """One native object of a slide; groups hold their children."""

    id: int | None = None
    name: str = ""
    kind: ObjectKind
    rect: Rect | None = None
    rotation: float = 0.0
    flip_h: bool = False
    flip_v: bool = False
    z: int = 0
    text: str = ""
    geometry: str | None = None
    placeholder: str | None = None
    image_sha256: str | None = None
    image_fill: bool = False
    start: Endpoint | None = None
    end: Endpoint | None = None
    start_arrow: str | None = None
    end_arrow: str | None = None
    dash: str | None = None
    hidden: bool = False
    in_alternate_content: bool = False
    children: tuple[SlideObject, ...] = ()
    #: Part name of ``image_sha256`` (``ppt/media/image1.png``), for reading the bytes.
    image_part: str | None = None
    #: The target of a picture linked rather than embedded (``r:link``, an external or
    #: out-of-package ``r:embed``): it paints where an embedded one would, so the raster audit
    #: counts it; the renderer never fetches it (:mod:`refig_toolkit_pptx.links`).
    image_link: str | None = None
    #: ``slide`` for the slide's own objects; ``layout``/``master`` for the non-placeholder shapes
    #: those paint behind the slide (negative ``z``, not in :meth:`ObjectTree.counts`).
    layer: Literal["slide", "layout", "master"] = "slide"
    #: Inside ``mc:AlternateContent``: which branch, and whether it is the branch LibreOffice shows.
    alternate_branch: Literal["choice", "fallback"] | None = None
    alternate_selected: bool = True


class ObjectTree(Record):
    """O(P): every native object of the slide, in paint order (back to front)."""

    slide_width: int
    slide_height: int
    objects: tuple[SlideObject, ...] = ()
    background_image_sha256: str | None = None
    background_image_part: str | None = None
    #: The target of a linked background picture (see ``SlideObject.image_link``).
    background_image_link: str | None = None
    #: Every relationship of the package that reaches outside it, stripped before rendering.
    external_links: tuple[ExternalLink, ...] = ()

    def walk(self) -> Iterator[SlideObject]:
        """Every object, groups before their children, depth first in paint order."""
        stack = list(reversed(self.objects))
        while stack:
            obj = stack.pop()
            yield obj
            stack.extend(reversed(obj.children))

    def shown(self, *, inherited: bool = False) -> Iterator[SlideObject]:
        """The objects that paint: not hidden (nor inside a hidden group), and of each
        ``mc:AlternateContent`` only the shown branch; groups before their children. The slide's
        own objects, or with ``inherited`` also the shapes its layout and master paint behind it
        (whose text shows too)."""
        stack = [o for o in reversed(self.objects) if inherited or o.layer == "slide"]
        while stack:
            obj = stack.pop()
            if obj.hidden or not obj.alternate_selected:
                continue
            yield obj
            stack.extend(reversed(obj.children))

    def counts(self) -> dict[str, int]:
        """The objects the slide shows (:meth:`shown`) by kind. A connector is bound when both
        ends name a shape id that exists on the slide."""
        own = list(self.shown())
        ids = {o.id for o in own if o.id is not None and o.kind != ObjectKind.CONNECTOR}
        kinds = [o.kind for o in own]
        connectors = [o for o in own if o.kind == ObjectKind.CONNECTOR]
        return {
            "text_boxes": kinds.count(ObjectKind.TEXT_BOX),
            "auto_shapes": kinds.count(ObjectKind.AUTO_SHAPE),
            "connectors": len(connectors),
            "bound_connectors": sum(
                1
                for c in connectors
                if c.start is not None
                and c.end is not None
                and c.start.shape_id in ids
                and c.end.shape_id in ids
            ),
            "freeforms": kinds.count(ObjectKind.FREEFORM),
            "groups": kinds.count(ObjectKind.GROUP),
            "pictures": kinds.count(ObjectKind.PICTURE),
            "tables": kinds.count(ObjectKind.TABLE),
            "charts": kinds.count(ObjectKind.CHART),
            "smartart": kinds.count(ObjectKind.SMARTART),
        }


def object_tree(artifact: Artifact) -> ObjectTree | None:
    """The artifact's slide object tree, when its family's structure is one."""
    return artifact.structure if isinstance(artifact.structure, ObjectTree) else None
