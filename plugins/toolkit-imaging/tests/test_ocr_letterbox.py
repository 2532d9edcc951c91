"""Thin pictures reach RapidOCR padded like a wide one: its words are read where they are, and a
strip costs no more memory than a square picture (a 40 x 2000 px strip took 5.4 GB before)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from PIL import Image, ImageDraw, ImageFont

pytest.importorskip("rapidocr_onnxruntime")

from refig_toolkit_imaging.ocr import MAX_ASPECT, PADDED_ASPECT, letterboxed, read_text

#: Address space for a subprocess reading thin strips: the square picture's peak is under 1 GB.
MEMORY_LIMIT = 3 << 30


def banner() -> Image.Image:
    """A 4000 x 40 px strip holding one line of text near its left end."""
    image = Image.new("RGB", (4000, 40), "white")
    ImageDraw.Draw(image).text((20, 4), "Encoder pipeline", fill="black",
                               font=ImageFont.load_default(size=30))
    return image


@pytest.mark.parametrize(("size", "padded", "offset"), [
    ((900, 300), (900, 300), (0, 0)),  # within 8:1: as it is
    ((800, 100), (800, 100), (0, 0)),  # exactly 8:1
    ((2000, 40), (2000, 500), (0, 230)),
    ((40, 2000), (500, 2000), (230, 0)),
    ((2560, 1), (2560, 639), (0, 319)),
])
def test_a_thin_picture_is_centred_on_bands_to_four_to_one(
        size: tuple[int, int], padded: tuple[int, int], offset: tuple[int, int]) -> None:
    picture = Image.new("RGB", size, "white")
    boxed, start = letterboxed(picture)
    assert (boxed.size, start) == (padded, offset)
    assert boxed.crop((*start, start[0] + size[0], start[1] + size[1])).getcolors() == [
        (size[0] * size[1], (255, 255, 255))]
    if boxed.size != size:
        assert max(boxed.size) <= PADDED_ASPECT * min(boxed.size) + PADDED_ASPECT
    assert max(size) > MAX_ASPECT * min(size) or boxed is picture


@pytest.mark.parametrize("tall", [False, True])  # a tall one is the banner turned a quarter
def test_a_banner_s_words_are_read_in_its_own_pixels(tall: bool) -> None:
    picture = banner().rotate(90, expand=True) if tall else banner()
    lines = read_text(picture, max_side=2560)
    assert lines and "encoder" in lines[0].text.lower()
    x0, y0, x1, y1 = lines[0].box
    across, along = ((x0, x1), (4000 - y1, 4000 - y0)) if tall else ((y0, y1), (x0, x1))
    # read at 0.64 of the strip's size: boxes within a few of its pixels
    assert across[0] >= -8 and across[1] <= 48
    assert -8 <= along[0] < 100 and along[1] < 1000


def test_thin_strips_stay_within_the_memory_of_a_square_picture() -> None:
    script = (
        "import resource; from PIL import Image; from refig_toolkit_imaging.ocr import read_text;"
        f"resource.setrlimit(resource.RLIMIT_AS, ({MEMORY_LIMIT}, {MEMORY_LIMIT}));"
        "[read_text(Image.new('RGB', size, 'white'), max_side=2560)"
        " for size in ((40, 2000), (5, 2000), (2000, 5), (40000, 30))]; print('read')"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "read", done.stderr[-2000:]
