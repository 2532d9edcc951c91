"""The difference view marks what differs, not where a faithful rebuild's edges fall a pixel
off: with a fixed 32-level test, pixel by pixel, a copy of the figure drawn two pixels to the
right was red along every line and letter."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw
from refig_reporter_html.images import difference


def _figure(path: Path, shift: int = 0, extra: bool = False) -> Path:
    image = Image.new("RGB", (1200, 800), "white")
    draw = ImageDraw.Draw(image)
    for i in range(10):
        x, y = 50 + i * 110 + shift, 100 + shift
        draw.rectangle((x, y, x + 80, y + 200), outline="black", width=3)
        draw.text((x + 10, y + 100), f"box {i}", fill="black")
        draw.line((x + 40, y + 200, x + 40, y + 400), fill="black", width=2)
    if extra:
        draw.rectangle((300, 600, 900, 750), fill=(20, 40, 200))
    image.save(path)
    return path


def _red(png: bytes) -> np.ndarray:
    pixels = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.int16)
    return (pixels[..., 0] == 220) & (pixels[..., 1] == 30) & (pixels[..., 2] == 30)


def test_a_rebuild_two_pixels_off_is_not_marked(tmp_path: Path) -> None:
    found = difference(_figure(tmp_path / "a.png"), _figure(tmp_path / "b.png", shift=2))
    assert found is not None
    png, share = found
    assert share == 0.0 and not _red(png).any()


def test_what_the_result_adds_or_lacks_is_marked_where_it_is(tmp_path: Path) -> None:
    source = _figure(tmp_path / "a.png")
    added = _figure(tmp_path / "c.png", extra=True)
    for a, b in ((source, added), (added, source)):  # an added box, then a missing one
        found = difference(a, b)
        assert found is not None
        red = _red(found[0])
        box = red[600:751, 300:901]
        assert box.mean() > 0.95  # the box, all of it
        assert red.sum() - box.sum() < 0.01 * box.size  # and little else
        assert found[1] == red.mean()
