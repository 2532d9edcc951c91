"""The flattening metric on real .pptx files: pastes hidden every way we know, and honest slides."""

from __future__ import annotations

import struct
import zipfile
import zlib
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from PIL import Image, ImageDraw
from pptx.oxml.ns import qn
from pptx.util import Emu
from refig.models import GateReason, GateResult, MetricValue
from refig.protocols import Artifact
from refig_metric_flattening.metric import Flattening


def run(artifact: Artifact) -> dict[str, MetricValue]:
    return {v.name: v for v in Flattening().compute(artifact)}


def flags(values: dict[str, MetricValue]) -> tuple[Any, Any]:
    return values["pasted_source"].value, values["flattened"].value


def saved(image: Image.Image, path: Path, fmt: str = "PNG", **options: Any) -> Path:
    image.save(path, fmt, **options)
    return path


@pytest.fixture
def source_image(source_png: Path) -> Image.Image:
    return Image.open(source_png).convert("RGB")


# --- cheating: the source pasted, however hidden ---


def test_full_slide_picture_paste(kit: ModuleType, source_png: Path, slides) -> None:
    prs, slide = kit.new_slide()
    slide.shapes.add_picture(str(source_png), 0, 0, kit.SLIDE_W, kit.SLIDE_H)
    values = run(kit.inspect(kit.save(prs, slides("paste")), source_png))
    assert flags(values) == (1, 1)
    assert values["raster_area_ratio"].value == pytest.approx(1.0)
    assert values["pasted_source"].detail["image"]["match"]["kind"] == "whole"
    assert values["pasted_source"].detail["distance"] <= 2
    assert values["pasted_source"].reference_sha256 is not None


def test_paste_as_the_picture_fill_of_a_shape(kit: ModuleType, source_png: Path, slides) -> None:
    prs, slide = kit.new_slide()
    kit.add_picture_fill(slide, source_png, (600_000, 300_000, 11_000_000, 6_000_000))
    values = run(kit.inspect(kit.save(prs, slides("fill")), source_png))
    assert flags(values) == (1, 1)
    assert values["pasted_source"].detail["image"]["roles"] == ["fill"]


def test_paste_as_the_slide_background(kit: ModuleType, source_png: Path, slides) -> None:
    prs, slide = kit.new_slide()
    kit.set_background(slide, source_png)
    kit.add_native_figure(slide)  # native shapes on top do not excuse the paste beneath
    values = run(kit.inspect(kit.save(prs, slides("background")), source_png))
    assert flags(values) == (1, 1)
    assert values["raster_area_ratio"].value == pytest.approx(1.0)
    assert values["pasted_source"].detail["image"]["roles"] == ["background"]


def test_paste_inside_alternate_content(kit: ModuleType, source_png: Path, slides) -> None:
    prs, slide = kit.new_slide()
    picture = slide.shapes.add_picture(str(source_png), 0, 0, kit.SLIDE_W, kit.SLIDE_H)
    kit.wrap_in_alternate_content(slide, picture._element)
    assert len(slide.shapes) == 0  # python-pptx no longer sees it
    values = run(kit.inspect(kit.save(prs, slides("alternate")), source_png))
    assert flags(values) == (1, 1)


def test_paste_in_the_slide_layout(kit: ModuleType, source_png: Path, slides) -> None:
    prs, slide = kit.new_slide()
    layout = slide.slide_layout
    helper = prs.slides.add_slide(layout)  # build the picture, then move it into the layout
    picture = helper.shapes.add_picture(str(source_png), 0, 0, kit.SLIDE_W, kit.SLIDE_H)
    _, rid = layout.part.get_or_add_image_part(str(source_png))
    picture._element.find(f".//{qn('a:blip')}").set(qn("r:embed"), rid)
    layout.shapes._spTree.append(picture._element)
    slide_ids = prs.slides._sldIdLst
    prs.part.drop_rel(slide_ids[-1].rId)
    slide_ids.remove(slide_ids[-1])
    values = run(kit.inspect(kit.save(prs, slides("layout")), source_png))
    assert flags(values) == (1, 1)
    assert values["pasted_source"].detail["image"]["layers"] == ["layout"]


def test_paste_inside_nested_groups(kit: ModuleType, source_png: Path, slides) -> None:
    prs, slide = kit.new_slide()
    outer = slide.shapes.add_group_shape()
    inner = outer.shapes.add_group_shape()
    inner.shapes.add_picture(str(source_png), 0, 0, kit.SLIDE_W, kit.SLIDE_H)
    values = run(kit.inspect(kit.save(prs, slides("group")), source_png))
    assert flags(values) == (1, 1)


def test_cropped_and_scaled_paste(
    kit: ModuleType, source_image: Image.Image, source_png: Path, slides, tmp_path: Path
) -> None:
    w, h = source_image.size
    piece = source_image.crop((int(0.05 * w), int(0.1 * h), int(0.92 * w), int(0.95 * h)))
    piece = piece.resize((piece.width * 3 // 5, piece.height * 3 // 5), Image.Resampling.LANCZOS)
    prs, slide = kit.new_slide()
    slide.shapes.add_picture(str(saved(piece, tmp_path / "piece.png")), 0, 0, kit.SLIDE_W)
    values = run(kit.inspect(kit.save(prs, slides("crop")), source_png))
    assert flags(values) == (1, 1)
    match = values["pasted_source"].detail["image"]["match"]
    assert match["kind"] == "crop"
    assert match["area"] == pytest.approx(0.87 * 0.85, abs=0.06)


def test_recompressed_small_jpeg_paste(
    kit: ModuleType, source_image: Image.Image, source_png: Path, slides, tmp_path: Path
) -> None:
    small = source_image.resize((480, 240), Image.Resampling.BILINEAR)
    jpeg = saved(small, tmp_path / "small.jpg", "JPEG", quality=35)
    prs, slide = kit.new_slide()
    slide.shapes.add_picture(str(jpeg), Emu(3_000_000), Emu(2_000_000), Emu(6_000_000))
    values = run(kit.inspect(kit.save(prs, slides("jpeg")), source_png))
    assert values["pasted_source"].value == 1
    assert values["flattened"].value == 1  # the paste alone flattens, even a small one


def test_crop_in_the_xml_keeps_the_bytes(kit: ModuleType, source_png: Path, slides) -> None:
    prs, slide = kit.new_slide()
    picture = slide.shapes.add_picture(str(source_png), 0, 0, kit.SLIDE_W, kit.SLIDE_H)
    picture.crop_left, picture.crop_right, picture.crop_top = 0.2, 0.1, 0.15
    values = run(kit.inspect(kit.save(prs, slides("srcrect")), source_png))
    assert flags(values) == (1, 1)


def test_tiles_that_together_make_the_source(
    kit: ModuleType, source_image: Image.Image, source_png: Path, slides, tmp_path: Path
) -> None:
    w, h = source_image.size
    prs, slide = kit.new_slide()
    for i, (x, y) in enumerate(((0, 0), (1, 0), (0, 1), (1, 1))):
        tile = source_image.crop((x * w // 2, y * h // 2, (x + 1) * w // 2, (y + 1) * h // 2))
        slide.shapes.add_picture(
            str(saved(tile, tmp_path / f"tile{i}.png")),
            Emu(x * kit.SLIDE_W // 2),
            Emu(y * kit.SLIDE_H // 2),
            Emu(kit.SLIDE_W // 2),
            Emu(kit.SLIDE_H // 2),
        )
    values = run(kit.inspect(kit.save(prs, slides("tiles")), source_png))
    assert flags(values) == (1, 1)
    # Each tile is trimmed of its white margins, so the union leaves the gaps between them out.
    assert values["pasted_source"].detail["piece_coverage"] > 0.6
    assert all(m["match"]["area"] < 0.5 for m in values["pasted_source"].detail["matches"])


def test_source_on_a_larger_canvas_with_other_content(
    kit: ModuleType, source_image: Image.Image, source_png: Path, slides, tmp_path: Path
) -> None:
    canvas = Image.new("RGB", (2200, 1300), "#E8EEF7")
    draw = ImageDraw.Draw(canvas)
    draw.rectangle((0, 0, 2200, 160), fill="#1F3B73")
    draw.text((60, 50), "Our method (reproduced)", font=kit.font(60), fill="white")
    draw.ellipse((1900, 1000, 2150, 1250), fill="#C0392B")
    canvas.paste(source_image.resize((1500, 750)), (150, 300))
    prs, slide = kit.new_slide()
    slide.shapes.add_picture(str(saved(canvas, tmp_path / "canvas.png")), 0, 0, kit.SLIDE_W)
    values = run(kit.inspect(kit.save(prs, slides("canvas")), source_png))
    assert flags(values) == (1, 1)
    assert values["pasted_source"].detail["image"]["match"]["kind"] == "contains"


# --- honest slides: must not be flagged ---


def test_native_rebuild_is_not_flattened(kit: ModuleType, source_png: Path, slides) -> None:
    prs, slide = kit.new_slide()
    kit.add_native_figure(slide)
    values = run(kit.inspect(kit.save(prs, slides("native")), source_png))
    assert flags(values) == (0, 0)
    assert values["raster_area_ratio"].value == 0.0
    assert values["flattened"].detail["native_words"] >= 10


def test_native_rebuild_with_an_extracted_photo_and_a_logo(
    kit: ModuleType, source_image: Image.Image, source_png: Path, slides, tmp_path: Path
) -> None:
    # The photo panel of the source is a photograph: extracting it is the honest way to keep it.
    photo = saved(source_image.crop((60, 180, 330, 540)), tmp_path / "photo.png")
    logo_pixels = np.random.default_rng(5).integers(0, 255, (64, 64, 3), dtype=np.uint8)
    logo = saved(Image.fromarray(logo_pixels).resize((128, 128)), tmp_path / "logo.png")
    prs, slide = kit.new_slide()
    kit.add_native_figure(slide)
    sx, sy = kit.SLIDE_W / 1600, kit.SLIDE_H / 800
    slide.shapes.add_picture(str(photo), Emu(int(60 * sx)), Emu(int(180 * sy)), Emu(int(270 * sx)))
    slide.shapes.add_picture(str(logo), Emu(11_000_000), Emu(5_800_000), Emu(800_000))
    values = run(kit.inspect(kit.save(prs, slides("photo")), source_png))
    assert flags(values) == (0, 0)
    assert 0.05 < values["raster_area_ratio"].value < 0.15
    crops = values["pasted_source"].detail["matches"]
    assert [m["match"]["kind"] for m in crops] == ["crop"]  # found, but far from the whole
    assert values["pasted_source"].detail["piece_coverage"] < 0.15


def test_featureless_background_picture_does_not_flatten(
    kit: ModuleType, source_png: Path, slides, tmp_path: Path
) -> None:
    ramp = np.linspace(235, 255, 1600, dtype=np.uint8)[None, :, None].repeat(900, 0).repeat(3, 2)
    gradient = saved(Image.fromarray(ramp), tmp_path / "gradient.png")
    prs, slide = kit.new_slide()
    kit.set_background(slide, gradient)
    kit.add_native_figure(slide)
    values = run(kit.inspect(kit.save(prs, slides("gradient")), source_png))
    assert values["raster_area_ratio"].value == pytest.approx(1.0)
    assert values["content_raster_area_ratio"].value == 0.0
    assert flags(values) == (0, 0)


def test_hidden_paste_is_reported_but_not_flagged(
    kit: ModuleType, source_png: Path, slides
) -> None:
    prs, slide = kit.new_slide()
    kit.add_native_figure(slide)
    picture = slide.shapes.add_picture(str(source_png), 0, 0, kit.SLIDE_W, kit.SLIDE_H)
    picture._element.nvPicPr.cNvPr.set("hidden", "1")
    values = run(kit.inspect(kit.save(prs, slides("hidden")), source_png))
    assert flags(values) == (0, 0)
    assert values["raster_area_ratio"].value == 0.0
    assert values["pasted_source"].detail["matches"][0]["hidden"] is True


# --- the raster rule, and missing inputs ---


def test_a_large_raster_that_is_not_the_source_still_flattens(
    kit: ModuleType, source_png: Path, slides, tmp_path: Path
) -> None:
    chart = Image.new("RGB", (1200, 700), "white")
    draw = ImageDraw.Draw(chart)
    for i, height in enumerate((300, 520, 180, 610, 420)):
        draw.rectangle((100 + i * 210, 650 - height, 250 + i * 210, 650), fill="#2E86C1")
    prs, slide = kit.new_slide()
    slide.shapes.add_picture(
        str(saved(chart, tmp_path / "chart.png")), 0, 0, kit.SLIDE_W, kit.SLIDE_H
    )
    values = run(kit.inspect(kit.save(prs, slides("chart")), source_png))
    assert flags(values) == (0, 1)
    assert any("native_words" in reason for reason in values["flattened"].detail["reasons"])


def test_without_a_source_the_raster_rule_still_answers(
    kit: ModuleType, source_png: Path, slides
) -> None:
    prs, slide = kit.new_slide()
    slide.shapes.add_picture(str(source_png), 0, 0, kit.SLIDE_W, kit.SLIDE_H)
    values = run(kit.inspect(kit.save(prs, slides("nosource"))))
    assert values["pasted_source"].value is None
    assert "no source" in values["pasted_source"].detail["reason"]
    assert values["flattened"].value == 1
    assert values["flattened"].detail["source_checked"] is False


def swap_image(path: Path, data: bytes) -> Path:
    """Replace the bytes of the deck's only image part (python-pptx checks what it adds)."""
    with zipfile.ZipFile(path) as archive:
        parts = {info.filename: archive.read(info) for info in archive.infolist()}
    [media] = [name for name in parts if name.startswith("ppt/media/")]
    parts[media] = data
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, part in parts.items():
            archive.writestr(name, part)
    return path


def test_an_unreadable_source_is_reported_not_raised(
    kit: ModuleType, source_png: Path, slides, tmp_path: Path
) -> None:
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    prs, slide = kit.new_slide()
    slide.shapes.add_picture(str(source_png), 0, 0, kit.SLIDE_W // 2)
    path = kit.save(prs, slides("broken-source"))
    values = run(kit.inspect(path, broken))
    assert values["pasted_source"].value is None
    assert "cannot read the source" in values["pasted_source"].detail["reason"]


def test_an_image_pillow_cannot_decode_counts_as_raster_but_is_listed(
    kit: ModuleType, source_png: Path, slides
) -> None:
    prs, slide = kit.new_slide()
    slide.shapes.add_picture(str(source_png), 0, 0, kit.SLIDE_W, kit.SLIDE_H)
    path = swap_image(kit.save(prs, slides("undecodable")), b"\x01\x00\x00\x00 an EMF, say")
    values = run(kit.inspect(path, source_png))
    assert values["raster_area_ratio"].value == pytest.approx(1.0)
    assert values["pasted_source"].value == 0  # nothing readable matched...
    [unreadable] = values["pasted_source"].detail["unreadable"]
    assert unreadable["error"]  # ...and the image that could not be compared is named
    assert values["flattened"].value == 1  # a full-slide raster flattens whatever it shows


def test_images_the_package_limits_refuse_leave_the_paste_unknown(
    kit: ModuleType, source_png: Path, slides
) -> None:
    """A header declaring 20,000 x 20,000 pixels: the bounded reader refuses the images, so the
    metric cannot say whether the source is among them (the gate fails such a deck anyway)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        checksum = struct.pack(">I", zlib.crc32(kind + data))
        return struct.pack(">I", len(data)) + kind + data + checksum

    size = struct.pack(">IIBBBBB", 20_000, 20_000, 8, 2, 0, 0, 0)
    bomb = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", size) + chunk(b"IDAT", b"") + chunk(b"IEND", b"")
    prs, slide = kit.new_slide()
    slide.shapes.add_picture(str(source_png), 0, 0, kit.SLIDE_W, kit.SLIDE_H)
    path = swap_image(kit.save(prs, slides("bomb")), bomb)
    values = run(kit.inspect(path, source_png))
    assert values["pasted_source"].value is None
    assert "cannot read the images" in values["pasted_source"].detail["reason"]
    assert values["flattened"].detail["source_checked"] is False


def test_no_tree_gives_none_with_a_reason() -> None:
    gate = GateResult(passed=False, reason=GateReason.CORRUPT)
    values = run(Artifact(path=Path("x.pptx"), sha256="0" * 64, gate=gate))
    assert all(v.value is None for v in values.values())
    assert "gate failed" in values["flattened"].detail["reason"]


# --- a real figure ---


def test_real_figure_cropped_paste_and_honest_text_slide(
    kit: ModuleType, slides, tmp_path: Path
) -> None:
    figures = sorted(kit.REAL_FIGURES.glob("*.png")) if kit.REAL_FIGURES.is_dir() else []
    if not figures:
        pytest.skip(f"no real figures at {kit.REAL_FIGURES}")
    figure = figures[0]
    image = Image.open(figure).convert("RGB")
    w, h = image.size
    piece = image.crop((int(0.08 * w), 0, w, int(0.9 * h)))
    prs, slide = kit.new_slide()
    slide.shapes.add_picture(str(saved(piece, tmp_path / "real-piece.png")), 0, 0, kit.SLIDE_W)
    assert flags(run(kit.inspect(kit.save(prs, slides("real-paste")), figure))) == (1, 1)
    prs, slide = kit.new_slide()
    kit.add_native_figure(slide)
    assert flags(run(kit.inspect(kit.save(prs, slides("real-honest")), figure))) == (0, 0)
