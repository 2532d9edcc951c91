"""What the metric plugins share of the PPTX toolkit: raster placements and native text."""

from __future__ import annotations

from refig_toolkit_pptx import ObjectKind, ObjectTree, Rect, SlideObject
from refig_toolkit_pptx.rasters import raster_placements
from refig_toolkit_pptx.slide_text import native_text, word_tokens


def tree() -> ObjectTree:
    box = Rect(x=0, y=0, w=10, h=10)
    hidden_group = SlideObject(
        id=1,
        kind=ObjectKind.GROUP,
        hidden=True,
        children=(
            SlideObject(id=2, kind=ObjectKind.PICTURE, rect=box, image_sha256="a" * 64),
            SlideObject(id=3, kind=ObjectKind.TEXT_BOX, text="Secret"),
        ),
    )
    choice = SlideObject(id=4, kind=ObjectKind.TEXT_BOX, text="Shown", alternate_branch="choice")
    fallback = SlideObject(
        id=4,
        kind=ObjectKind.TEXT_BOX,
        text="Shown",
        alternate_branch="fallback",
        alternate_selected=False,
    )
    fill = SlideObject(
        id=5, kind=ObjectKind.AUTO_SHAPE, rect=box, image_sha256="b" * 64, image_fill=True
    )
    return ObjectTree(
        slide_width=100,
        slide_height=50,
        objects=(hidden_group, choice, fallback, fill),
        background_image_sha256="c" * 64,
    )


def test_raster_placements_see_fills_backgrounds_and_hidden_groups() -> None:
    placements = raster_placements(tree())
    assert [(p.sha256[0], p.role, p.hidden) for p in placements] == [
        ("c", "background", False),
        ("a", "picture", True),
        ("b", "fill", False),
    ]
    assert placements[0].rect == Rect(x=0, y=0, w=100, h=50)


def test_native_text_skips_hidden_and_unshown_branches() -> None:
    assert [o.id for o in tree().shown(inherited=True)] == [4, 5]
    assert native_text(tree()) == ["Shown"]
    assert word_tokens("ReLU(x)+Self-Attn") == ["relu", "x", "self", "attn"]
