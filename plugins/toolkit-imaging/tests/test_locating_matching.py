"""Matching embedded images against the source on edge cases (the realistic pastes are in
test_flattening.py)."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw
from refig_toolkit_imaging import content_box
from refig_toolkit_imaging.locating.matching import (
    SEARCH_WIDTH,
    SummedAreas,
    match,
    signature,
    window_std,
)


def test_degenerate_images_never_match_and_stay_small() -> None:
    figure = Image.effect_mandelbrot((400, 200), (-2, -1, 1, 1), 60).convert("RGB")
    source = signature(figure)
    for odd in (
        Image.new("RGB", (1, 1)),
        Image.new("RGB", (2, 9000), "red"),
        figure.resize((3, 900)),
    ):
        candidate = signature(odd)
        assert candidate.grey.shape[0] <= 4 * SEARCH_WIDTH
        assert match(candidate, source) is None
        assert match(source, candidate) is None


def test_blank_and_gradient_images_are_featureless_and_a_figure_is_not() -> None:
    ramp = Image.linear_gradient("L").resize((640, 360)).convert("RGB")
    assert signature(Image.new("RGB", (640, 360), "white")).featureless
    assert signature(ramp).featureless
    assert not signature(Image.effect_mandelbrot((400, 200), (-2, -1, 1, 1), 60)).featureless


def test_window_spread_from_shared_tables_is_the_direct_one() -> None:
    """The tables made once per haystack give each window size exactly what fresh tables give,
    and that is the windows' standard deviation."""
    image = np.random.default_rng(3).random((40, 60), dtype=np.float32)
    tables = SummedAreas.of(image)
    for height, width in ((1, 1), (5, 7), (12, 3), (40, 60)):
        shared = window_std(tables, height, width)
        assert np.array_equal(shared, window_std(image, height, width))
        direct = np.lib.stride_tricks.sliding_window_view(image.astype(np.float64),
                                                          (height, width)).std(axis=(2, 3))
        assert np.allclose(shared, direct, atol=1e-6)


def drawn_figure(seed: int) -> Image.Image:
    """A 1200 x 600 diagram-like figure: outlined boxes of random size with text, and lines."""
    rng = np.random.default_rng(seed)
    image = Image.new("RGB", (1200, 600), "white")
    draw = ImageDraw.Draw(image)
    for i in range(14):
        x, y = int(rng.integers(0, 1050)), int(rng.integers(0, 520))
        w, h = int(rng.integers(60, 200)), int(rng.integers(30, 90))
        colour = tuple(int(c) for c in rng.integers(0, 200, 3))
        draw.rectangle((x, y, x + w, y + h), outline=colour, width=3)
        draw.text((x + 8, y + 8), f"node {seed}-{i}", fill=colour)
        draw.line((x + w, y + h // 2, int(rng.integers(0, 1200)), int(rng.integers(0, 600))),
                  fill=colour, width=2)
    return image


@pytest.mark.parametrize("scale", [0.5, 1.0, 2.0])
@pytest.mark.parametrize("box", [(0.0, 0.0, 0.5, 1.0), (0.3, 0.25, 0.8, 0.75),
                                 (0.55, 0.5, 0.95, 1.0)])
def test_a_scaled_crop_is_found_where_it_was_cut_and_nowhere_else(
    box: tuple[float, float, float, float], scale: float
) -> None:
    """Crops covering 20 to 50% of the source, shrunk or enlarged twofold, are found at their
    true region (within 2% of the source's size); in another figure they are not found."""
    figure = drawn_figure(1)
    w, h = figure.size
    cut = (round(box[0] * w), round(box[1] * h), round(box[2] * w), round(box[3] * h))
    piece = figure.crop(cut)
    # regions are fractions of the trimmed source, and the piece is trimmed too
    left, top, right, bottom = content_box(figure) or (0, 0, w, h)
    inner = content_box(piece) or (0, 0, piece.width, piece.height)
    sx, sy = right - left, bottom - top
    expected = ((cut[0] + inner[0] - left) / sx, (cut[1] + inner[1] - top) / sy,
                (cut[0] + inner[2] - left) / sx, (cut[1] + inner[3] - top) / sy)
    piece = piece.resize((round(piece.width * scale), round(piece.height * scale)),
                         Image.Resampling.LANCZOS)
    found = match(signature(piece), signature(figure))
    assert found is not None and found.kind == "crop"
    assert found.region == pytest.approx(expected, abs=0.02)
    assert match(signature(piece), signature(drawn_figure(2))) is None


def test_a_source_on_a_larger_canvas_is_contained_and_another_is_not() -> None:
    figure = drawn_figure(1)
    canvas = drawn_figure(3).resize((2000, 1000))
    canvas.paste(figure, (600, 300))  # the source covers 36% of the canvas
    found = match(signature(canvas), signature(figure))
    assert found is not None and found.kind == "contains"
    assert match(signature(canvas), signature(drawn_figure(2))) is None
