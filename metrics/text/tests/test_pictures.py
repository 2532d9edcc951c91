"""Which shown pictures the text metric decodes: a PNG or JPEG is sized by its header and decoded
only when OCR reads it; a picture with no pixels keeps its skipped entry, in the slide's order; a
pair the search answered before, and its source's trimmed box, need no image decoded again."""

from __future__ import annotations

import dataclasses
import hashlib
import io
import zipfile
from pathlib import Path
from types import ModuleType

import pytest
from PIL import Image
from refig.protocols import Artifact
from refig_metric_text import pictures
from refig_metric_text.metric import TextRecall
from refig_toolkit_imaging import open_image
from refig_toolkit_imaging.locating import shared as locating
from refig_toolkit_pptx import object_tree
from refig_toolkit_pptx.rasters import slide_images

#: One label of the generated figure (conftest ``draw_figure``, 1600 x 800), as an annotation.
ANNOTATION = {"image": {"width": 1600, "height": 800},
              "nodes": [{"id": "n0", "text": "Image Encoder", "box": [420, 150, 740, 300]}]}


@pytest.fixture(autouse=True)
def fresh() -> None:
    locating.forget()


def png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


def deck(kit: ModuleType, slides, tmp_path: Path, source: Path, name: str,
         payloads: list[bytes]) -> Artifact:
    """A slide showing each payload as a picture, the first the largest, with ``source``'s
    labels as the reference."""
    prs, slide = kit.new_slide()
    for i in range(len(payloads)):  # a distinct stand-in each, replaced by its payload below
        slide.shapes.add_picture(io.BytesIO(png(Image.new("RGB", (40 + i, 40)))), 0, 0,
                                 kit.SLIDE_W - i * 1_000_000)
    made = kit.save(prs, tmp_path / f"{name}-made.pptx")
    path = slides(name)
    with zipfile.ZipFile(made) as old, zipfile.ZipFile(path, "w") as new:
        for entry in old.namelist():
            number = entry.removeprefix("ppt/media/image").removesuffix(".png")
            new.writestr(entry, payloads[int(number) - 1] if number.isdigit()
                         else old.read(entry))
    return dataclasses.replace(kit.inspect(path, source), annotation=ANNOTATION)


def image_words(artifact: Artifact) -> dict:
    return next(v for v in TextRecall().compute(artifact) if v.name == "image_words").detail


def test_a_located_png_is_sized_by_its_header_and_never_decoded_here(
    kit: ModuleType, slides, tmp_path: Path, source_png: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tiny = png(Image.new("RGB", (10, 30), "red"))
    artifact = deck(kit, slides, tmp_path, source_png, "located",
                    [source_png.read_bytes(), tiny])
    shown = slide_images(artifact.path, object_tree(artifact))
    assert [(i.width, i.height) for i in shown] == [(1600, 800), (10, 30)]
    decoded: list[bytes] = []

    def counted(data: bytes) -> Image.Image:
        decoded.append(data)
        return open_image(data)

    monkeypatch.setattr(pictures, "open_image", counted)
    detail = image_words(artifact)
    assert [entry["kind"] for entry in detail["images_located"]] == ["whole"]
    assert detail["images_read"] == [] and "images_skipped" not in detail
    assert decoded == [tiny]  # only the picture under MIN_OCR_SIDE by its header


def test_pictures_without_pixels_keep_their_reason_in_the_slide_order(
    kit: ModuleType, slides, tmp_path: Path, source_png: Path
) -> None:
    full = source_png.read_bytes()
    truncated = full[: len(full) // 2]  # a valid header: only decoding finds the damage
    tiny_truncated = png(Image.new("RGB", (10, 30)))[:50]  # its header whole
    artifact = deck(kit, slides, tmp_path, source_png, "broken",
                    [truncated, b"not an image" * 8, full, tiny_truncated])
    detail = image_words(artifact)
    parts = [image.part for image in slide_images(artifact.path, object_tree(artifact))]
    assert detail["images_skipped"] == [
        {"part": parts[0], "reason": "cannot decode image <bytes>: image file is truncated"},
        {"part": parts[1],
         "reason": "cannot read image <bytes>: cannot identify image file <bytes>"},
        {"part": parts[3], "reason": "cannot decode image <bytes>: image file is truncated"},
    ]
    assert [entry["part"] for entry in detail["images_located"]] == [parts[2]]
    assert detail["images_read"] == []


def test_a_pair_searched_before_needs_no_signature_again(
    source_png: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The pass runs flattening over every artifact before text: by then the signatures may be
    # evicted, but the pair's answer and the source's box are still kept.
    figure = Image.open(source_png).convert("RGB")
    crop = png(figure.crop((400, 100, 1200, 700)))
    crop_sha, source_sha = hashlib.sha256(crop).hexdigest(), hashlib.sha256(
        source_png.read_bytes()).hexdigest()
    first = locating.locate(crop_sha, crop, source_sha, source_png)
    assert first is not None and first.kind == "crop"
    box = locating.source_signature(source_sha, source_png).box
    locating.image_signature.cache_clear()
    locating.source_signature.cache_clear()

    def refused(*_: object) -> None:
        raise AssertionError("a signature was made for a pair already searched")

    monkeypatch.setattr(locating, "image_signature", refused)
    monkeypatch.setattr(locating, "source_signature", refused)
    assert locating.locate(crop_sha, crop, source_sha, source_png) == first
    assert locating.source_box(source_sha, source_png) == box  # the crop's region maps through it
    assert locating.matches.searches == 1
