"""The share of the slide that raster images cover: a union of (rotated) boxes, not a sum."""

from __future__ import annotations

from collections.abc import Iterable

from refig_toolkit_pptx.rasters import RasterPlacement
from shapely import affinity
from shapely.geometry import box
from shapely.ops import unary_union


def covered_share(placements: Iterable[RasterPlacement], width: float, height: float) -> float:
    """Area of the union of the placements' boxes, clipped to the slide, over the slide's area.

    A box is rotated about its centre by the object's rotation (clockwise on screen, which is
    shapely's counter-clockwise in the y-down slide frame). Boxes without geometry add nothing.
    """
    if width <= 0 or height <= 0:
        return 0.0
    shapes = []
    for placement in placements:
        rect = placement.rect
        if rect is None or rect.w == 0 or rect.h == 0:
            continue
        x0, x1 = sorted((rect.x, rect.x + rect.w))
        y0, y1 = sorted((rect.y, rect.y + rect.h))
        shape = box(x0, y0, x1, y1)
        if placement.rotation % 360:
            shape = affinity.rotate(shape, placement.rotation, origin="center")
        shapes.append(shape)
    if not shapes:
        return 0.0
    slide = box(0, 0, width, height)
    return float(unary_union(shapes).intersection(slide).area / slide.area)
