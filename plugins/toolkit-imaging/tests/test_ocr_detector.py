"""The text detector reads a large image as a copy shrunk to ``DETECTOR_SIDE`` and a small one by
RapidOCR's own rule; either way the lines come back where they are in the image."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

pytest.importorskip("rapidocr_onnxruntime")

from refig_toolkit_imaging.ocr import DETECTOR_SIDE, ScaledDetector, engine, models, read_text

WORDS = ("Vision Encoder", "Text Decoder", "Cross Attention")


def figure(width: int, height: int, size: int) -> tuple[Image.Image, list[tuple[int, int]]]:
    """A white figure with the three labels at known places, ``size`` px high each."""
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=size)
    places = [(width // 10, height // 6), (width // 2, height // 2), (width // 8, 3 * height // 4)]
    for text, place in zip(WORDS, places, strict=True):
        draw.text(place, text, fill="black", font=font)
    return image, places


class Recording:
    """A stand-in detector that notes the size it is handed and finds one box at (10, 20, 30, 40)
    of what it saw, or none in an image under ``blind_under`` px long: a real detector's output
    cannot say which copy it read."""

    def __init__(self, blind_under: int = 0) -> None:
        self.seen: list[tuple[int, int]] = []
        self.blind_under = blind_under

    def __call__(self, image: np.ndarray) -> tuple[np.ndarray, float]:
        self.seen.append(image.shape[:2])
        if max(image.shape[:2]) < self.blind_under:
            return np.zeros((0, 4, 2), dtype=np.float32), 0.0
        return np.array([[[10, 20], [30, 20], [30, 40], [10, 40]]], dtype=np.float32), 0.0


def test_a_large_image_is_detected_shrunk_and_its_boxes_mapped_back() -> None:
    recording = Recording()
    detector = ScaledDetector(recording, 1000)
    boxes, _ = detector(np.zeros((1500, 3000, 3), dtype=np.uint8))
    assert recording.seen == [(500, 1000)]  # the shrunk copy holds the same detector state
    assert detector.shrunk.limit_type == "max"  # the shrunk copy is not enlarged again
    assert boxes.tolist() == [[[30, 60], [90, 60], [90, 120], [30, 120]]]


def test_a_small_image_goes_to_rapidocr_s_own_rule_untouched() -> None:
    recording = Recording()
    boxes, _ = ScaledDetector(recording, 1000)(np.zeros((400, 1000, 3), dtype=np.uint8))
    assert recording.seen == [(400, 1000)]
    assert boxes.tolist() == [[[10, 20], [30, 20], [30, 40], [10, 40]]]


def test_a_large_image_whose_shrunk_copy_shows_no_text_is_read_by_rapidocr_s_rule() -> None:
    recording = Recording(blind_under=2000)
    boxes, _ = ScaledDetector(recording, 1000)(np.zeros((500, 2000, 3), dtype=np.uint8))
    assert recording.seen == [(250, 1000), (500, 2000)]
    assert boxes.tolist() == [[[10, 20], [30, 20], [30, 40], [10, 40]]]


def test_the_detector_shares_the_engine_s_sessions() -> None:
    ocr = engine()
    assert isinstance(ocr.text_det, ScaledDetector) and ocr.text_det.side == DETECTOR_SIDE
    assert ocr.text_det.shrunk.infer is models(ocr)[0]


@pytest.mark.parametrize("shape", [(3000, 1200, 40), (1800, 700, 24)])
def test_the_words_of_a_large_figure_are_read_where_they_are(shape: tuple[int, int, int]) -> None:
    width, height, size = shape
    image, places = figure(width, height, size)
    lines = read_text(image, max_side=4096)
    for text, (x, y) in zip(WORDS, places, strict=True):
        line = next(line for line in lines if line.text.replace(" ", "") == text.replace(" ", ""))
        x0, y0, _, y1 = line.box
        assert abs(x0 - x) < size and y - size / 2 < (y0 + y1) / 2 < y + 1.5 * size
