"""Slide selection for the VQ judge on real LibreOffice renderings of generated edits."""

from __future__ import annotations

import shutil

import pytest
from refig_family_deck_edit.compare import compare
from refig_family_deck_edit.references import reference_pages
from refig_family_deck_edit.selection import select_slides

from .conftest import read

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("soffice") is None, reason="needs LibreOffice")]


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("REFIG_CACHE_DIR", str(tmp_path / "cache"))


def _select(original, target, prediction):
    one, two, three = read(original), read(target), read(prediction)
    pages = {"original": reference_pages(original), "target": reference_pages(target),
             "prediction": reference_pages(prediction)}
    assert len(pages["original"]) == len(one.slides)  # the hidden staging slide is rendered
    return select_slides(one, two, three, compare(one, two, three), pages)


def test_an_invisible_edit_is_selected_by_the_structural_diff_alone(write_case):
    _, original, target = write_case("alt-text")
    selection = _select(original, target, original)
    assert [(s.original, s.reasons) for s in selection.slides] == [(6, ("structural diff",))]
    assert selection.slides[0].ssim_target == 1.0  # alt text does not show


def test_visible_theme_and_background_edits_select_what_they_repaint(write_case):
    _, original, target = write_case("title-background")
    selection = _select(original, target, target)
    [slide] = selection.slides
    assert slide.original == 1 and "SSIM" in slide.reasons and slide.ssim_target < 0.9
    _, original, target = write_case("theme-accent")
    selection = _select(original, target, original)
    assert [s.original for s in selection.slides] == list(range(1, 11))


def test_a_deleted_slide_is_selected_and_mapped(write_case):
    _, original, target = write_case("notes-then-delete-staging")
    selection = _select(original, target, target)
    by_slide = {s.original: s for s in selection.slides}
    assert set(by_slide) == {2, 3, 5, 7}  # notes on 2, 3, 5; staging slide 7 removed
    assert by_slide[7].target is None and "removed" in by_slide[7].reasons
    assert by_slide[2].reasons == ("structural diff",)  # notes do not render on the slide
