"""Raster coverage is a union of boxes clipped to the slide, never a sum."""

from __future__ import annotations

import math

import pytest
from refig_metric_flattening.coverage import covered_share
from refig_toolkit_pptx import Rect
from refig_toolkit_pptx.rasters import RasterPlacement


def placed(x: float, y: float, w: float, h: float, rotation: float = 0.0) -> RasterPlacement:
    return RasterPlacement(
        "0" * 64, None, Rect(x=x, y=y, w=w, h=h), rotation, "picture", False, "slide"
    )


def test_overlapping_pictures_count_once() -> None:
    share = covered_share([placed(0, 0, 60, 100), placed(40, 0, 60, 100)], 100, 100)
    assert share == pytest.approx(1.0)


def test_pictures_are_clipped_to_the_slide() -> None:
    assert covered_share([placed(-50, -50, 100, 100)], 100, 100) == pytest.approx(0.25)
    assert covered_share([placed(200, 200, 100, 100)], 100, 100) == 0.0


def test_rotation_turns_the_box_about_its_centre() -> None:
    # A 100 x 20 bar turned 90 degrees about its centre (50, 50) stands in x 40-60, y 0-100.
    share = covered_share([placed(0, 40, 100, 20, 90), placed(40, 0, 20, 100)], 100, 100)
    assert share == pytest.approx(0.2)
    diamond = covered_share([placed(25, 25, 50, 50, 45)], 100, 100)
    assert diamond == pytest.approx(0.25)  # a rotated square keeps its area inside the slide
    corner = covered_share([placed(-50, -50, 100, 100, 45)], 100, 100)
    assert corner == pytest.approx(math.sqrt(2) * 50 * math.sqrt(2) * 50 / 2 / 10_000, rel=1e-6)


def test_placements_without_geometry_add_nothing() -> None:
    nowhere = RasterPlacement("0" * 64, None, None, 0.0, "picture", False, "slide")
    assert covered_share([nowhere], 100, 100) == 0.0
