"""A small generated suite: overview-style figures drawn with Pillow (boxes, labels, arrows)."""

from __future__ import annotations

import io
import itertools
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont
from refig.suite import SuiteWriter

FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
LABELS = [("Encoder", "Decoder", "Loss"), ("Input", "Backbone", "Head"),
          ("Tokens", "Transformer", "Output"), ("Image", "Features", "Mask"),
          ("Query", "Retriever", "Answer"), ("Audio", "Spectrogram", "Classifier")]
FILLS = ["#dae8fc", "#ffe6cc", "#d5e8d4", "#fff2cc", "#e1d5e7", "#f8cecc"]


def arrow(draw: ImageDraw.ImageDraw, start: tuple[int, int], end: tuple[int, int]) -> None:
    """A horizontal arrow with a filled triangular head at ``end``."""
    (x0, y), (x1, _) = start, end
    draw.line([(x0, y), (x1 - 14, y)], fill="#333333", width=3)
    draw.polygon([(x1, y), (x1 - 16, y - 8), (x1 - 16, y + 8)], fill="#333333")


def figure(index: int) -> bytes:
    """Three labelled boxes in a row joined by two arrows, inside a dashed group."""
    image = Image.new("RGB", (900, 320), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(str(FONT), 26) if FONT.exists() else ImageFont.load_default(26)
    xs = (60, 360, 660)
    for n, (x, label) in enumerate(zip(xs, LABELS[index % len(LABELS)], strict=True)):
        fill = FILLS[(index + n) % len(FILLS)]
        draw.rounded_rectangle((x, 120, x + 190, 200), radius=10, fill=fill, outline="#4d4d4d",
                               width=3)
        draw.text((x + 95, 160), label, font=font, fill="#1a1a1a", anchor="mm")
    for left, right in itertools.pairwise(xs):
        arrow(draw, (left + 192, 160), (right - 2, 160))
    for x in range(30, 870, 15):  # a dashed group around the row
        draw.line([(x, 90), (x + 10, 90)], fill="#777777", width=2)
        draw.line([(x, 240), (x + 10, 240)], fill="#777777", width=2)
    for y in range(90, 240, 15):
        draw.line([(30, y), (30, y + 10)], fill="#777777", width=2)
        draw.line([(870, y), (870, y + 10)], fill="#777777", width=2)
    draw.text((450, 45), f"Pipeline {index}", font=font, fill="#000000", anchor="mm")
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


def make_suite(root: Path, n: int) -> Path:
    writer = SuiteWriter(root, name="drawn", family="figure-to-slide", builder="test")
    for index in range(n):
        labels = LABELS[index % len(LABELS)]
        writer.add(f"fig-{index}", f"fig-{index}.png", figure(index),
                   annotation={"nodes": list(labels), "edges": [[0, 1], [1, 2]]})
    writer.finish()
    return root


@pytest.fixture(scope="session")
def drawn_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_suite(tmp_path_factory.mktemp("drawn") / "suite", 3)


def _refig(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    command = [str(Path(sys.executable).parent / "refig"), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                          env=dict(os.environ), check=False)


@pytest.fixture(scope="session")
def refig() -> Callable[..., subprocess.CompletedProcess[str]]:
    """The real ``refig`` command line, as a user runs it."""
    return _refig


@pytest.fixture(scope="session")
def suite_maker() -> Callable[[Path, int], Path]:
    return make_suite
