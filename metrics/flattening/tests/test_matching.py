"""Matching embedded images against the source on edge cases (the realistic pastes are in
test_flattening.py)."""

from __future__ import annotations

from PIL import Image
from refig_metric_flattening.matching import SEARCH_WIDTH, match, signature


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
