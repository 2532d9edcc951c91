"""Where O(P) puts the children of rotated, flipped, scaled and nested groups, checked against
where a real LibreOffice paints them: the centre the tree gives each coloured square is the
centre of that colour's pixels in the rendering."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from pptx import Presentation
from pptx.dml.color import RGBColor
from pptx.enum.shapes import MSO_SHAPE
from pptx.util import Emu
from refig.protocols import RenderJob
from refig_renderer_libreoffice.renderer import LibreOfficeRenderer
from refig_toolkit_pptx import ObjectKind, ObjectTree
from refig_toolkit_pptx.gate import inspect_structure
from refig_toolkit_pptx.xml import q

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice is not installed"),
]

WIDTH, HEIGHT = 12_192_000, 6_858_000
PIXELS = 1200
COLOURS = {"red": (230, 20, 20), "green": (20, 170, 40), "blue": (20, 40, 230)}
SIDE = 600_000


def _square(shapes, name: str, x: int, y: int, side: int = SIDE):
    shape = shapes.add_shape(MSO_SHAPE.RECTANGLE, Emu(x), Emu(y), Emu(side), Emu(side))
    shape.name = name
    shape.fill.solid()
    shape.fill.fore_color.rgb = RGBColor(*COLOURS[name])
    shape.line.fill.background()
    return shape


def _xfrm(group, **attrs: str):
    xfrm = group._element.find(f"{q('p:grpSpPr')}/{q('a:xfrm')}")
    for key, value in attrs.items():
        xfrm.set(key, value)
    return xfrm


def _scale_group(group, factor: float) -> None:
    """Shrink the group's box about its offset: children keep their child-space coordinates."""
    ext = _xfrm(group).find(q("a:ext"))
    for key in ("cx", "cy"):
        ext.set(key, str(int(int(ext.get(key)) * factor)))


def deck(path: Path, case: str) -> Path:
    prs = Presentation()
    prs.slide_width, prs.slide_height = Emu(WIDTH), Emu(HEIGHT)
    shapes = prs.slides.add_slide(prs.slide_layouts[6]).shapes
    group = shapes.add_group_shape()
    # An L of three squares, so that a rotation or a mirror shows in where each one lands.
    _square(group.shapes, "red", 3_000_000, 1_500_000)
    _square(group.shapes, "green", 5_400_000, 1_500_000)
    if case == "nested":
        inner = group.shapes.add_group_shape()
        _square(inner.shapes, "blue", 3_000_000, 3_900_000)
        _xfrm(inner, rot=str(45 * 60_000))
        _scale_group(inner, 0.6)
    else:
        _square(group.shapes, "blue", 3_000_000, 3_900_000)
    settings = {
        "rotated": {"rot": str(90 * 60_000)},
        "oblique": {"rot": str(30 * 60_000)},
        "flipped": {"flipH": "1"},
        "flipped-rotated": {"flipV": "1", "rot": str(60 * 60_000)},
        "nested": {"rot": str(-120 * 60_000)},
    }[case]
    _xfrm(group, **settings)
    _scale_group(group, 0.7)
    prs.save(path)
    return path


def centroids(png: Path) -> dict[str, tuple[float, float]]:
    pixels = np.asarray(Image.open(png).convert("RGB"), dtype=np.int32)
    found = {}
    for name, rgb in COLOURS.items():
        mask = np.abs(pixels - np.asarray(rgb)).sum(axis=-1) < 60
        ys, xs = np.nonzero(mask)
        assert len(xs) > 100, f"{name} is not painted"
        found[name] = (float(xs.mean()), float(ys.mean()))
    return found


def tree_centres(tree: ObjectTree) -> dict[str, tuple[float, float]]:
    scale = PIXELS / WIDTH
    centres = {}
    for obj in tree.walk():
        if obj.kind is ObjectKind.AUTO_SHAPE and obj.name in COLOURS:
            r = obj.rect
            centres[obj.name] = ((r.x + r.w / 2) * scale, (r.y + r.h / 2) * scale)
    return centres


@pytest.fixture(scope="module")
def renderer():
    with LibreOfficeRenderer(width=PIXELS, workers=1, timeout=120) as shared:
        yield shared


@pytest.mark.parametrize("case", ["rotated", "oblique", "flipped", "flipped-rotated", "nested"])
def test_children_of_transformed_groups_sit_where_libreoffice_paints_them(
    renderer: LibreOfficeRenderer, tmp_path: Path, case: str
) -> None:
    path = deck(tmp_path / f"{case}.pptx", case)
    result = inspect_structure(path)
    assert result.gate.passed and result.tree is not None, result.gate
    [output] = renderer.render([RenderJob(path)], tmp_path / "png")
    assert output.png is not None, output.error
    painted, placed = centroids(output.png), tree_centres(result.tree)
    # Within 1% of the slide width (12 px of 1200); a square is 59 px wide at this scale.
    for name in COLOURS:
        dx, dy = (placed[name][i] - painted[name][i] for i in range(2))
        assert np.hypot(dx, dy) < 12, (case, name, placed[name], painted[name])


def test_rotation_and_flips_compose_through_groups(tmp_path: Path) -> None:
    """A square in a group rotated 60 degrees and mirrored top to bottom, inside a group rotated
    90: its own 10 degrees turn the other way under the single mirror, so 90 + 60 - 10."""
    prs = Presentation()
    shapes = prs.slides.add_slide(prs.slide_layouts[6]).shapes
    outer = shapes.add_group_shape()
    inner = outer.shapes.add_group_shape()
    square = _square(inner.shapes, "red", 1_000_000, 1_000_000)
    square.rotation = 10
    _xfrm(inner, rot=str(60 * 60_000), flipV="1")
    _xfrm(outer, rot=str(90 * 60_000))
    prs.save(tmp_path / "deck.pptx")
    tree = inspect_structure(tmp_path / "deck.pptx").tree
    [red] = [o for o in tree.walk() if o.name == "red"]
    assert red.rotation == pytest.approx(140.0)
    assert (red.flip_h, red.flip_v) == (False, True)
