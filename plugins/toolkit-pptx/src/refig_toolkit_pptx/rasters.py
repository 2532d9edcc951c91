"""Where a slide paints raster images, and their bytes.

A picture can paint as a ``p:pic``, as the picture fill of a shape, group or frame, or as the
slide background (the slide's own or inherited from its layout, master or theme), in any layer and
in either branch of ``mc:AlternateContent``. The flattening and text metrics look at all of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from refig_toolkit_pptx.images import embedded_images
from refig_toolkit_pptx.limits import DEFAULT_LIMITS, Limits
from refig_toolkit_pptx.objects import ObjectTree, Rect, SlideObject

Role = Literal["picture", "fill", "background"]


#: What a linked picture's placement carries instead of the bytes' sha256 (it has no bytes).
LINK_PREFIX = "link:"


@dataclass(frozen=True)
class RasterPlacement:
    """One place an image paints: its box in slide EMU (None when unknown).

    A linked picture paints there as an embedded one would (LibreOffice fetched it until refig
    made links inert), so it is a placement too: its ``sha256`` is ``link:`` and the target.
    """

    sha256: str
    part: str | None
    rect: Rect | None
    rotation: float
    role: Role
    hidden: bool
    layer: str
    object_id: int | None = None
    name: str = ""


def raster_placements(tree: ObjectTree) -> list[RasterPlacement]:
    """Every image placement of the tree, background first, then in paint order.

    An object inside a hidden group is hidden too.
    """
    found: list[RasterPlacement] = []
    background = tree.background_image_sha256 or _linked(tree.background_image_link)
    if background:
        slide = Rect(x=0, y=0, w=tree.slide_width, h=tree.slide_height)
        found.append(
            RasterPlacement(
                sha256=background,
                part=tree.background_image_part,
                rect=slide,
                rotation=0.0,
                role="background",
                hidden=False,
                layer="slide",
                name="background",
            )
        )
    found.extend(_placements(tree.objects, hidden=False))
    return found


def _placements(objects: Iterable[SlideObject], *, hidden: bool) -> Iterator[RasterPlacement]:
    for obj in objects:
        concealed = hidden or obj.hidden
        if image := obj.image_sha256 or _linked(obj.image_link):
            yield RasterPlacement(
                sha256=image,
                part=obj.image_part,
                rect=obj.rect,
                rotation=obj.rotation,
                role="fill" if obj.image_fill else "picture",
                hidden=concealed,
                layer=obj.layer,
                object_id=obj.id,
                name=obj.name,
            )
        yield from _placements(obj.children, hidden=concealed)


def _linked(target: str | None) -> str | None:
    return None if target is None else LINK_PREFIX + target


@dataclass(frozen=True)
class SlideImage:
    """One embedded image the slide can show, with every place the tree paints it.

    An image with no placement is reachable from the slide but not drawn by a shape the tree
    reads (a chart or SmartArt fill, an OLE preview, an unused theme fill): it counts as shown.
    ``width``/``height`` are its header's pixel size (see
    :class:`refig_toolkit_pptx.EmbeddedImage`).
    """

    part: str
    sha256: str
    data: bytes
    placements: tuple[RasterPlacement, ...] = ()
    width: int | None = None
    height: int | None = None

    @property
    def shown(self) -> bool:
        """True when some placement paints, or none is known (see the class docstring)."""
        return not self.placements or any(not p.hidden for p in self.placements)

    @property
    def slide_area(self) -> float:
        """The summed area of its boxes in EMU² (an ordering key, not a coverage)."""
        return sum(abs(p.rect.w * p.rect.h) for p in self.placements if p.rect is not None)


def slide_images(path: Path, tree: ObjectTree, limits: Limits = DEFAULT_LIMITS) -> list[SlideImage]:
    """Every image the slide can show, shown ones first, the largest on the slide first.

    The bytes come from :func:`refig_toolkit_pptx.embedded_images`, bounded by ``limits``; it raises
    :class:`refig_toolkit_pptx.PackageError` for a deck that breaks them.
    """
    by_sha: dict[str, list[RasterPlacement]] = {}
    for placement in raster_placements(tree):
        by_sha.setdefault(placement.sha256, []).append(placement)
    images = [
        SlideImage(image.part, image.sha256, image.data, tuple(by_sha.get(image.sha256, ())),
                   image.width, image.height)
        for image in embedded_images(path, limits=limits).values()
    ]
    unique = {image.sha256: image for image in reversed(images)}  # one per content
    return sorted(unique.values(), key=lambda i: (not i.shown, -i.slide_area, i.part))
