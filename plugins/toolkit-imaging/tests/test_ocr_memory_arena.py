"""The OCR engine's sessions keep onnxruntime's CPU memory arena on, and it reads what RapidOCR's
own sessions (arena off) read: the arena is a cost, never a change of result."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw, ImageFont

pytest.importorskip("rapidocr_onnxruntime")

from refig_toolkit_imaging.ocr import engine, models, read_text


def picture() -> Image.Image:
    """Three lines of black text on white."""
    image = Image.new("RGB", (900, 300), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=36)
    for row, text in enumerate(["Encoder block", "Attention head 12", "Loss and output"]):
        draw.text((40, 30 + 90 * row), text, fill="black", font=font)
    return image


def test_every_session_keeps_the_memory_arena() -> None:
    for model in models(engine(1)):
        assert model.session.get_session_options().enable_cpu_mem_arena


def test_the_arena_reads_what_rapidocr_s_own_sessions_read() -> None:
    lines = read_text(picture(), threads=1)
    assert len(lines) >= 3
    for model in models(engine(1, arena=False)):
        assert not model.session.get_session_options().enable_cpu_mem_arena
    assert read_text(picture(), threads=1, arena=False) == lines  # texts, boxes, scores, exactly
