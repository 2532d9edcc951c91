"""What the metric plugins share of the imaging toolkit: image content boxes and alpha."""

from __future__ import annotations

import io

import numpy as np
from PIL import Image
from refig_toolkit_imaging import border_colour, content_box, flatten_alpha, open_image


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


def test_an_opaque_image_flattens_to_what_compositing_gives() -> None:
    pixels = np.random.default_rng(3).integers(0, 256, (40, 60, 4), dtype=np.uint8)
    pixels[..., 3] = 255
    opaque = Image.fromarray(pixels, "RGBA")
    canvas = Image.new("RGBA", opaque.size, (255, 255, 255, 255))
    composited = Image.alpha_composite(canvas, opaque).convert("RGB")
    assert flatten_alpha(opaque).tobytes() == composited.tobytes()
    pixels[0, 0, 3] = 254  # one pixel not opaque: composited, as before
    almost = Image.fromarray(pixels, "RGBA")
    assert flatten_alpha(almost).tobytes() == Image.alpha_composite(canvas, almost).convert(
        "RGB").tobytes()
