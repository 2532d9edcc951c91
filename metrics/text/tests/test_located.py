"""Text metric version 6: a picture found in the source holds the source's words in its region
(no OCR of it); any other picture is still read by OCR; the search runs once per pair."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from PIL import Image, ImageDraw, ImageOps
from refig.models import MetricValue
from refig.protocols import Artifact
from refig_metric_flattening.metric import Flattening
from refig_metric_text.located import Word, laid_out, words_in
from refig_metric_text.metric import TextRecall
from refig_toolkit_imaging.locating import shared as locating
from refig_toolkit_pptx.slide_text import word_tokens

#: The generated figure (conftest ``draw_figure``): 1600 x 800, six labels in a 3 x 2 grid.
WIDTH, HEIGHT = 1600, 800


def annotation(kit: ModuleType) -> dict[str, Any]:
    """The exact labels of ``draw_figure`` with their boxes, as a suite's annotation holds them."""
    nodes = []
    for i, label in enumerate(kit.LABELS):
        x0, y0 = 420 + (i % 3) * 400, 150 + (i // 3) * 330
        nodes.append({"id": f"n{i}", "text": label, "box": [x0, y0, x0 + 320, y0 + 150],
                      "text_box": [x0 + 40, y0 + 55, x0 + 280, y0 + 95]})
    nodes.append({"id": "view", "text": "Input View", "box": [110, 570, 280, 610]})
    return {"image": {"width": WIDTH, "height": HEIGHT}, "nodes": nodes,
            "panels": [{"id": "p", "title": kit.TITLE, "title_box": [420, 25, 1180, 75]}]}


def with_annotation(artifact: Artifact, kit: ModuleType) -> Artifact:
    return dataclasses.replace(artifact, annotation=annotation(kit))


def run(artifact: Artifact) -> dict[str, MetricValue]:
    return {v.name: v for v in TextRecall().compute(artifact)}


def pasted(kit: ModuleType, slides, name: str, picture: Image.Image, source: Path,
           tmp_path: Path) -> Artifact:
    path = tmp_path / f"{name}.png"
    picture.save(path)
    prs, slide = kit.new_slide()
    slide.shapes.add_picture(str(path), 0, 0, kit.SLIDE_W)
    return with_annotation(kit.inspect(kit.save(prs, slides(name)), source), kit)


@pytest.fixture(autouse=True)
def fresh() -> None:
    locating.forget()


@pytest.mark.parametrize("scale", [1.0, 0.6])
def test_a_located_crop_holds_exactly_the_labels_inside_its_region(
    kit: ModuleType, source_png: Path, slides, tmp_path: Path, scale: float
) -> None:
    # the right two columns, below the title: four labels, all whole
    crop = Image.open(source_png).convert("RGB").crop((800, 130, 1600, 800))
    crop = crop.resize((round(crop.width * scale), round(crop.height * scale)))
    values = run(pasted(kit, slides, f"crop{scale}", crop, source_png, tmp_path))
    inside = [t for label in kit.LABELS[1:3] + kit.LABELS[4:6] for t in word_tokens(label)]
    detail = values["image_words"].detail
    assert [entry["kind"] for entry in detail["images_located"]] == ["crop"]
    assert detail["images_read"] == []  # no OCR of the pasted piece
    assert values["image_words"].value == len(inside) == 8
    assert sorted(values["image_only_share"].detail["words"]) == sorted(inside)
    assert values["image_only_share"].value == len(inside) / values["source_words"].value


def test_the_pasted_source_holds_every_label(kit: ModuleType, source_png: Path, slides,
                                             tmp_path: Path) -> None:
    bigger = Image.open(source_png).convert("RGB").resize((2 * WIDTH, 2 * HEIGHT))
    values = run(pasted(kit, slides, "bigger", bigger, source_png, tmp_path))
    assert values["image_words"].detail["images_located"][0]["kind"] == "whole"
    assert values["image_only_share"].value == 1.0
    assert values["image_words"].value == values["source_words"].value == 19


def test_a_picture_not_from_the_source_is_read_by_ocr(kit: ModuleType, source_png: Path, slides,
                                                       tmp_path: Path) -> None:
    card = Image.new("RGB", (900, 300), "white")
    ImageDraw.Draw(card).text((40, 100), "Memory Bank Decoder", font=kit.font(64), fill="black")
    values = run(pasted(kit, slides, "card", card, source_png, tmp_path))
    detail = values["image_words"].detail
    assert detail["images_located"] == [] and len(detail["images_read"]) == 1
    assert values["image_words"].value == 3
    assert sorted(values["image_only_share"].detail["words"]) == ["bank", "decoder", "memory"]


def test_a_recoloured_paste_is_located_or_read_never_wordless(
    kit: ModuleType, source_png: Path, slides, tmp_path: Path
) -> None:
    inverted = ImageOps.invert(Image.open(source_png).convert("RGB"))
    values = run(pasted(kit, slides, "inverted", inverted, source_png, tmp_path))
    detail = values["image_words"].detail
    assert len(detail["images_located"]) + len(detail["images_read"]) == 1
    assert values["image_words"].value >= 12
    assert values["image_only_share"].value >= 0.7


def test_the_location_is_searched_once_per_pair_for_both_metrics(
    kit: ModuleType, source_png: Path, slides, tmp_path: Path
) -> None:
    crop = Image.open(source_png).convert("RGB").crop((0, 0, 900, 800))
    first = pasted(kit, slides, "a", crop, source_png, tmp_path)
    second = pasted(kit, slides, "b", crop, source_png, tmp_path)  # same picture bytes
    for artifact in (first, second):
        assert run(artifact)["image_words"].detail["images_located"][0]["kind"] == "crop"
        assert {v.name: v.value for v in Flattening().compute(artifact)}["pasted_source"] == 1
    assert locating.matches.searches == 1


def test_hostile_pictures_give_typed_values(kit: ModuleType, source_png: Path, slides,
                                            tmp_path: Path) -> None:
    pictures = {
        "dot": Image.new("RGB", (1, 1), "black"),
        "strip": Image.new("RGB", (4000, 30), "white"),
        "huge": Image.linear_gradient("L").resize((6000, 4000)).convert("RGB"),
    }
    for name, picture in pictures.items():
        values = run(pasted(kit, slides, name, picture, source_png, tmp_path))
        assert values["image_words"].value == 0, name
        assert values["image_only_share"].value == 0.0, name


def test_a_picture_larger_than_the_source_holding_it(kit: ModuleType, source_png: Path,
                                                      slides, tmp_path: Path) -> None:
    canvas = Image.new("RGB", (2 * WIDTH, 2 * HEIGHT), "#EEEEEE")
    canvas.paste(Image.open(source_png).convert("RGB"), (WIDTH // 2, HEIGHT // 2))
    draw = ImageDraw.Draw(canvas)
    draw.rectangle((40, 40, 700, 1500), fill="#224466")
    draw.text((900, 1350), "A caption of another figure", font=kit.font(60), fill="black")
    values = run(pasted(kit, slides, "canvas", canvas, source_png, tmp_path))
    assert values["image_words"].detail["images_located"][0]["kind"] == "contains"
    assert values["image_only_share"].value == 1.0  # the caption is no word of the source


def test_a_word_counts_in_a_region_holding_at_least_half_of_it() -> None:
    words = laid_out("alpha beta", (0.0, 0.0, 1.0, 0.1))  # "alpha" 0-0.5, "beta" 0.6-1.0
    assert [w.token for w in words] == ["alpha", "beta"]
    assert words_in(words, (0.0, 0.0, 0.3, 1.0)) == ["alpha"]  # 60% of alpha
    assert words_in(words, (0.0, 0.0, 0.2, 1.0)) == []  # 40% of alpha
    assert words_in(words, (0.0, 0.0, 1.0, 0.04)) == []  # the top 40% of the line
    assert words_in([Word("dot", (0.5, 0.5, 0.5, 0.5))], (0.4, 0.4, 0.6, 0.6)) == ["dot"]


def test_labels_without_boxes_leave_a_crop_to_ocr(kit: ModuleType, source_png: Path, slides,
                                                  tmp_path: Path) -> None:
    crop = Image.open(source_png).convert("RGB").crop((800, 130, 1600, 800))
    artifact = pasted(kit, slides, "unboxed", crop, source_png, tmp_path)
    unboxed = {"nodes": [{"id": n["id"], "text": n["text"]} for n in annotation(kit)["nodes"]]}
    values = run(dataclasses.replace(artifact, annotation=unboxed))
    detail = values["image_words"].detail
    assert detail["images_located"] == [] and len(detail["images_read"]) == 1
    assert values["image_words"].value >= 6  # OCR of the piece's four labels
