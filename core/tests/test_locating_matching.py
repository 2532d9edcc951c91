"""Matching embedded images against the source on edge cases (the realistic pastes are in
test_flattening.py)."""

from __future__ import annotations

import numpy as np
from PIL import Image
from refig.locating.matching import (
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
