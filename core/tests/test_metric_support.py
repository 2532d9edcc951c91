"""Core helpers the metric plugins share: image content boxes, alpha, raster placements,
native text and value stamping."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import numpy as np
from PIL import Image
from refig.metric_values import ValueMaker, source_sha256, unavailable
from refig.models import GateReason, GateResult
from refig.protocols import Artifact
from refig_toolkit_imaging import border_colour, content_box, flatten_alpha, open_image
from refig_toolkit_pptx import ObjectKind, ObjectTree, Rect, SlideObject
from refig_toolkit_pptx.rasters import raster_placements
from refig_toolkit_pptx.slide_text import native_text, word_tokens


def test_content_box_is_exact_across_bands() -> None:
    image = Image.new("RGB", (300, 1000), (250, 250, 250))
    image.paste((20, 40, 200), (17, 301, 123, 777))  # spans several 256-row bands
    assert border_colour(image) == (250, 250, 250)
    assert content_box(image) == (17, 301, 123, 777)
    assert content_box(image, band_pixels=300 * 256) == (17, 301, 123, 777)
    assert content_box(Image.new("RGB", (50, 50), "white")) is None


def test_content_box_is_the_definition_on_random_images() -> None:
    """Any channel more than 24 levels from the border colour, wherever the bands split."""
    rng = np.random.default_rng(0)
    for _ in range(200):
        width, height = (int(v) for v in rng.integers(1, 120, 2))
        pixels = np.tile(rng.integers(0, 256, 3), (height, width, 1))
        for _ in range(int(rng.integers(0, 4))):
            x0, y0 = int(rng.integers(0, width)), int(rng.integers(0, height))
            x1, y1 = int(rng.integers(x0, width + 1)), int(rng.integers(y0, height + 1))
            pixels[y0:y1, x0:x1] += rng.integers(-30, 31, 3)
        image = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))
        differs = (np.abs(np.asarray(image, dtype=np.int16)
                          - np.array(border_colour(image))) > 24).any(axis=2)
        rows, cols = np.flatnonzero(differs.any(axis=1)), np.flatnonzero(differs.any(axis=0))
        expected = (int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1) \
            if rows.size else None
        assert content_box(image, band_pixels=int(rng.integers(1, 3000))) == expected


def test_transparent_pixels_become_white_not_black() -> None:
    rgba = Image.new("RGBA", (4, 4), (0, 0, 0, 0))
    rgba.putpixel((0, 0), (255, 0, 0, 255))
    buffer = io.BytesIO()
    rgba.save(buffer, "PNG")
    opened = open_image(buffer.getvalue())
    assert opened.mode == "RGB"
    assert opened.getpixel((3, 3)) == (255, 255, 255)
    assert opened.getpixel((0, 0)) == (255, 0, 0)
    assert flatten_alpha(rgba, (0, 0, 255)).getpixel((1, 1)) == (0, 0, 255)


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


def test_value_maker_stamps_and_reports_missing(tmp_path: Path) -> None:
    source = tmp_path / "fig.png"
    Image.fromarray(np.zeros((4, 4, 3), dtype=np.uint8)).save(source)
    artifact = Artifact(
        path=tmp_path / "x.pptx", sha256="d" * 64, gate=GateResult(passed=True),
        references={"figure": source},
    )
    reference = source_sha256(artifact)
    assert reference == hashlib.sha256(source.read_bytes()).hexdigest()
    make = ValueMaker(artifact, "demo", "3", reference)
    value = make.value("score", 2, kept="yes", dropped=None)
    assert (value.metric, value.version, value.value, value.detail) == (
        "demo",
        "3",
        2.0,
        {"kept": "yes"},
    )
    missing = list(make.missing(["a", "b"], "no render"))
    assert [(v.name, v.value, v.detail["reason"]) for v in missing] == [
        ("a", None, "no render"),
        ("b", None, "no render"),
    ]


def test_a_missing_input_says_when_the_gate_failed(tmp_path: Path) -> None:
    passed = Artifact(path=tmp_path / "x.pptx", sha256="e" * 64, gate=GateResult(passed=True))
    failed = Artifact(
        path=tmp_path / "x.pptx",
        sha256="e" * 64,
        gate=GateResult(passed=False, reason=GateReason.RENDER_TIMEOUT),
    )
    assert unavailable("no rendering", passed) == "no rendering"
    assert unavailable("no rendering", failed) == "no rendering (gate failed)"
    assert source_sha256(passed) is None  # no task, no source file
