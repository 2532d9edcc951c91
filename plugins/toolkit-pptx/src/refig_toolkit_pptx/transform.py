"""Group transforms: where a shape inside nested groups lands in slide coordinates.

DrawingML places a group's children in the group's child space, scales that onto the group's
box, then flips and rotates the box about its centre; nested groups compose the maps.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from lxml import etree

from refig_toolkit_pptx.objects import Rect
from refig_toolkit_pptx.shape_xml import flag, point, rotation_of


@dataclass(frozen=True)
class Transform:
    """Child-to-slide mapping of a group nesting.

    DrawingML places a group's children in its child space (``a:chOff``/``a:chExt``), scales that
    onto the group's box (``a:off``/``a:ext``), then flips and rotates the box about its centre.
    ``matrix`` maps a child-space point to the slide (``x' = a x + b y + c``,
    ``y' = d x + e y + f``); ``sx``/``sy`` scale a child's size along its own axes; the
    orientation the nesting adds is a rotation after flips (``rotation`` degrees clockwise,
    ``flip_h``/``flip_v``).
    """

    matrix: tuple[float, float, float, float, float, float] = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0)
    sx: float = 1.0
    sy: float = 1.0
    rotation: float = 0.0
    flip_h: bool = False
    flip_v: bool = False

    def point(self, x: float, y: float) -> tuple[float, float]:
        a, b, c, d, e, f = self.matrix
        return a * x + b * y + c, d * x + e * y + f

    def rect(self, x: float, y: float, w: float, h: float) -> Rect:
        """A child box in slide coordinates: its centre mapped, its size scaled, unrotated."""
        cx, cy = self.point(x + w / 2, y + h / 2)
        sw, sh = self.sx * w, self.sy * h
        return Rect(x=cx - sw / 2, y=cy - sh / 2, w=sw, h=sh)

    def orient(self, rotation: float, flip_h: bool, flip_v: bool) -> tuple[float, bool, bool]:
        """A child's own rotation and flips composed with the nesting's, in slide terms.

        A single mirror reverses the sense of the child's rotation (F R(t) = R(-t) F).
        """
        mirrored = self.flip_h != self.flip_v
        turned = self.rotation + (-rotation if mirrored else rotation)
        return turned % 360.0, self.flip_h != flip_h, self.flip_v != flip_v

    def into_group(self, xfrm: etree._Element | None) -> Transform:
        """The transform for the children of a group whose ``a:xfrm`` is ``xfrm``."""
        if xfrm is None:
            return self
        off, ext = point(xfrm, "a:off", "x", "y"), point(xfrm, "a:ext", "cx", "cy")
        ch_off, ch_ext = point(xfrm, "a:chOff", "x", "y"), point(xfrm, "a:chExt", "cx", "cy")
        if off is None or ext is None:
            return self
        ch_off = ch_off or (0, 0)
        ch_ext = ch_ext or ext
        kx = ext[0] / ch_ext[0] if ch_ext[0] else 1.0
        ky = ext[1] / ch_ext[1] if ch_ext[1] else 1.0
        flip_h, flip_v = flag(xfrm.get("flipH")), flag(xfrm.get("flipV"))
        # In the parent's space: scale and offset, mirror, then rotate about the box centre.
        centre_x, centre_y = off[0] + ext[0] / 2, off[1] + ext[1] / 2
        theta = math.radians(rotation_of(xfrm))
        cos, sin = math.cos(theta), math.sin(theta)
        mx, my = (-kx if flip_h else kx), (-ky if flip_v else ky)
        # A child point p goes to q = centre + R M (p - child centre), M = diag(mx, my).
        child_x, child_y = ch_off[0] + ch_ext[0] / 2, ch_off[1] + ch_ext[1] / 2
        a, b, d, e = cos * mx, -sin * my, sin * mx, cos * my
        local = (a, b, centre_x - a * child_x - b * child_y,
                 d, e, centre_y - d * child_x - e * child_y)
        rotation, group_h, group_v = self.orient(rotation_of(xfrm), flip_h, flip_v)
        return Transform(
            matrix=_compose(self.matrix, local),
            sx=self.sx * kx,
            sy=self.sy * ky,
            rotation=rotation,
            flip_h=group_h,
            flip_v=group_v,
        )


def _compose(
    outer: tuple[float, float, float, float, float, float],
    inner: tuple[float, float, float, float, float, float],
) -> tuple[float, float, float, float, float, float]:
    """The affine map ``outer(inner(p))``."""
    a, b, c, d, e, f = outer
    p, q_, r, s, t, u = inner
    return (a * p + b * s, a * q_ + b * t, a * r + b * u + c,
            d * p + e * s, d * q_ + e * t, d * r + e * u + f)
