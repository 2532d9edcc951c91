"""The text metric with real OCR (RapidOCR, offline) on generated and real figures."""

from __future__ import annotations

import hashlib
from pathlib import Path
from types import ModuleType

import pytest
from PIL import Image, ImageDraw
from pptx.util import Emu, Pt
from refig.models import GateReason, GateResult, MetricValue
from refig.protocols import Artifact
from refig_metric_text.metric import TextRecall
from refig_metric_text.ocr_cache import ocr_tokens
from refig_toolkit_imaging.ocr import read_text


def run(artifact: Artifact, **options: object) -> dict[str, MetricValue]:
    return {v.name: v for v in TextRecall(**options).compute(artifact)}


def test_a_native_rebuild_recalls_the_source_text(
    kit: ModuleType, source_png: Path, slides
) -> None:
    prs, slide = kit.new_slide()
    kit.add_native_figure(slide)
    values = run(kit.inspect(kit.save(prs, slides("native")), source_png))
    assert values["recall"].value >= 0.9, values["recall"].detail
    assert values["precision"].value >= 0.9, values["precision"].detail
    assert values["image_only_share"].value == 0.0
    assert values["image_words"].value == 0
    assert values["source_words"].value >= 15
    assert values["recall"].reference_sha256 == hashlib.sha256(source_png.read_bytes()).hexdigest()


def test_a_pasted_source_has_its_text_only_in_pixels(
    kit: ModuleType, source_png: Path, slides
) -> None:
    prs, slide = kit.new_slide()
    slide.shapes.add_picture(str(source_png), 0, 0, kit.SLIDE_W)
    values = run(kit.inspect(kit.save(prs, slides("paste")), source_png))
    assert values["recall"].value == 0.0
    assert values["precision"].value is None
    assert values["precision"].detail["reason"] == "the slide has no native text"
    assert values["image_only_share"].value >= 0.9
    assert values["image_words"].value >= 15
    assert "encoder" in values["image_only_share"].detail["words"]


def test_half_native_half_picture_of_text(
    kit: ModuleType, source_png: Path, slides, tmp_path: Path
) -> None:
    # The title natively; the labels drawn into a picture (text the slide cannot edit).
    labels = Image.new("RGB", (1400, 500), "white")
    draw = ImageDraw.Draw(labels)
    for i, label in enumerate(kit.LABELS):
        draw.text((40 + (i % 3) * 460, 80 + (i // 3) * 240), label, font=kit.font(40), fill="black")
    labels.save(tmp_path / "labels.png")
    prs, slide = kit.new_slide()
    title = slide.shapes.add_textbox(Emu(0), Emu(0), Emu(kit.SLIDE_W), Emu(800_000))
    title.text_frame.text = kit.TITLE
    slide.shapes.add_picture(str(tmp_path / "labels.png"), Emu(0), Emu(1_000_000), Emu(kit.SLIDE_W))
    values = run(kit.inspect(kit.save(prs, slides("half")), source_png))
    source_words = values["source_words"].value
    assert values["recall"].value == pytest.approx(5 / source_words, abs=0.08)  # the title
    assert values["precision"].value == 1.0
    assert values["image_only_share"].value == pytest.approx(12 / source_words, abs=0.1)
    skipped = run(kit.inspect(kit.save(prs, slides("half")), source_png), read_images=False)
    assert skipped["image_only_share"].value is None  # not measured, so not zero
    assert "read_images=False" in skipped["image_only_share"].detail["reason"]
    assert skipped["image_words"].value is None
    assert skipped["recall"].value == values["recall"].value


def test_without_a_source_the_slide_images_are_not_read(kit: ModuleType, source_png: Path,
                                                         slides) -> None:
    prs, slide = kit.new_slide()
    slide.shapes.add_picture(str(source_png), 0, 0, kit.SLIDE_W)
    values = run(kit.inspect(kit.save(prs, slides("paste-alone"))))
    assert values["recall"].value is None and values["image_only_share"].value is None
    assert values["image_words"].value is None
    assert "no source figure" in values["image_words"].detail["reason"]
    assert "images_read" not in values["image_words"].detail


def test_text_in_tables_and_groups_counts(kit: ModuleType, source_png: Path, slides) -> None:
    prs, slide = kit.new_slide()
    table = slide.shapes.add_table(
        2, 3, Emu(500_000), Emu(1_500_000), Emu(9_000_000), Emu(2_000_000)
    )
    for i, label in enumerate(kit.LABELS):
        table.table.cell(i // 3, i % 3).text = label
    group = slide.shapes.add_group_shape()
    inner = group.shapes.add_group_shape()
    box = inner.shapes.add_textbox(Emu(500_000), Emu(200_000), Emu(9_000_000), Emu(600_000))
    box.text_frame.text = kit.TITLE
    box.text_frame.paragraphs[0].runs[0].font.size = Pt(24)
    values = run(kit.inspect(kit.save(prs, slides("table")), source_png))
    assert values["native_words"].value == 17
    assert values["recall"].value >= 0.8


def test_extra_native_text_lowers_precision(kit: ModuleType, source_png: Path, slides) -> None:
    prs, slide = kit.new_slide()
    kit.add_native_figure(slide)
    note = slide.shapes.add_textbox(Emu(0), Emu(6_000_000), Emu(kit.SLIDE_W), Emu(500_000))
    note.text_frame.text = "Figure reproduced by an agent with several invented words added here"
    values = run(kit.inspect(kit.save(prs, slides("extra")), source_png))
    assert values["precision"].value < 0.75
    assert "invented" in values["precision"].detail["extra"]
    assert values["recall"].value >= 0.9


def test_ocr_runs_once_per_image_hash(kit: ModuleType) -> None:
    calls = []
    card = Image.new("RGB", (420, 90), "white")
    ImageDraw.Draw(card).text((20, 20), "Cached Once", font=kit.font(44), fill="black")

    def load() -> Image.Image:
        calls.append(1)
        return card

    key = hashlib.sha256(card.tobytes()).hexdigest()
    first = ocr_tokens(key, load, max_side=2048, detector_side=1024)
    second = ocr_tokens(key, load, max_side=2048, detector_side=1024)
    assert first == second == ("cached", "once")
    assert len(calls) == 1
    # another detector setting is another reading
    assert ocr_tokens(key, load, max_side=2048, detector_side=0) == first
    assert len(calls) == 2


def test_missing_inputs_give_none_with_reasons(kit: ModuleType, slides, tmp_path: Path) -> None:
    prs, slide = kit.new_slide()
    kit.add_native_figure(slide)
    path = kit.save(prs, slides("nosource"))
    values = run(kit.inspect(path))
    assert values["recall"].value is None
    assert values["recall"].detail["reason"] == "no source figure to compare with"
    assert values["native_words"].value > 0
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"\x89PNG\r\n\x1a\n broken")
    assert "cannot read the source" in run(kit.inspect(path, broken))["recall"].detail["reason"]
    gate = GateResult(passed=False, reason=GateReason.MULTIPLE_SLIDES)
    failed = run(Artifact(path=path, sha256="0" * 64, gate=gate))
    assert all(v.value is None for v in failed.values())


def test_a_source_without_text(kit: ModuleType, slides, tmp_path: Path) -> None:
    blank = tmp_path / "shapes.png"
    picture = Image.new("RGB", (800, 400), "white")
    ImageDraw.Draw(picture).ellipse((100, 100, 300, 300), fill="#3366CC")
    picture.save(blank)
    prs, slide = kit.new_slide()
    kit.add_native_figure(slide)
    values = run(kit.inspect(kit.save(prs, slides("textless")), blank))
    assert values["source_words"].value == 0
    assert values["recall"].value is None
    assert "no text" in values["recall"].detail["reason"]


def test_real_figure_text_recall(kit: ModuleType, slides, tmp_path: Path) -> None:
    figures = sorted(kit.REAL_FIGURES.glob("*.png")) if kit.REAL_FIGURES.is_dir() else []
    if not figures:
        pytest.skip(f"no real figures at {kit.REAL_FIGURES}")
    figure = figures[0]
    lines = [line.text for line in read_text(figure)]
    # A rebuild that types the figure's labels natively, one text box per OCR line.
    prs, slide = kit.new_slide()
    for i, text in enumerate(lines):
        box = slide.shapes.add_textbox(
            Emu(200_000 + (i % 4) * 3_000_000),
            Emu(200_000 + (i // 4) * 500_000),
            Emu(2_800_000),
            Emu(400_000),
        )
        box.text_frame.text = text
    typed = run(kit.inspect(kit.save(prs, slides("real-typed")), figure))
    assert typed["recall"].value >= 0.95
    prs, slide = kit.new_slide()
    slide.shapes.add_picture(str(figure), 0, 0, kit.SLIDE_W)
    pasted = run(kit.inspect(kit.save(prs, slides("real-pasted")), figure))
    assert pasted["recall"].value == 0.0
    assert pasted["image_only_share"].value >= 0.8
