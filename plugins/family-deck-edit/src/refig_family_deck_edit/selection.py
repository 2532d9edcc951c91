"""Which slides the visual-quality judge sees: those where the prediction or the target differs
from the original, by SSIM **or** by the structural diff.

SSIM alone would screen out a small but meaningful change (one number in a table moves SSIM by
about a thousandth at judging resolution), and the structural diff alone misses what only shows
when rendered (a theme colour every slide inherits), so either one selects a slide. A slide
differs visually when the SSIM of its grey rendering, :data:`SSIM_WIDTH` pixels wide, against the
original's is below :data:`SSIM_THRESHOLD`; a slide added or removed on either side is always
selected. See ``docs/deck-edit.md`` for how the threshold was chosen.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image

from refig_family_deck_edit.compare import EditComparison
from refig_family_deck_edit.matching import match_slides
from refig_family_deck_edit.structure import DeckStructure

#: Below this SSIM a rendering differs from the original's. LibreOffice renders an unchanged
#: slide identically (SSIM 1.0); one changed table cell scores 0.9988 at 480 px and a theme
#: accent that tints one chart bar 0.9998, so a threshold this tight still cannot stand alone.
SSIM_THRESHOLD = 0.999
#: Deck-level changes that repaint every slide (the others, order and sections, repaint none).
_REPAINTS_ALL = {"slide_width", "slide_height", "masters"}
#: Width (px) at which renderings are compared.
SSIM_WIDTH = 480


@dataclass(frozen=True)
class SelectedSlide:
    """One slide for the VQ judge: its number in each deck (None: absent) and why it was chosen."""

    original: int | None
    target: int | None
    prediction: int | None
    reasons: tuple[str, ...] = ()
    ssim_target: float | None = None
    ssim_prediction: float | None = None


@dataclass(frozen=True)
class Selection:
    """The chosen slides and every slide's SSIM, for the report."""

    slides: tuple[SelectedSlide, ...]
    considered: int
    ssim: dict[str, tuple[float | None, float | None]] = field(default_factory=dict)


def _pixels(path: Path, mode: str) -> Image.Image:
    with Image.open(path) as image:
        converted = image.convert(mode)
        height = max(1, round(converted.height * SSIM_WIDTH / converted.width))
        return converted.resize((SSIM_WIDTH, height), Image.Resampling.BILINEAR)


def ssim(one: Path, two: Path, *, colour: bool = False) -> float:
    """SSIM of two renderings at :data:`SSIM_WIDTH` px (heights matched), in grey, or with
    ``colour`` the mean over the R, G and B channels (grey cannot tell red from blue)."""
    from skimage.metrics import structural_similarity

    mode = "RGB" if colour else "L"
    a, b = _pixels(one, mode), _pixels(two, mode)
    if a.size != b.size:
        b = b.resize(a.size)
    return float(structural_similarity(np.asarray(a), np.asarray(b), data_range=255,
                                       channel_axis=2 if colour else None))


def _page(pages: Sequence[Path], number: int | None) -> Path | None:
    return pages[number - 1] if number is not None and 0 < number <= len(pages) else None


def select_slides(original: DeckStructure, target: DeckStructure, prediction: DeckStructure,
                  comparison: EditComparison, pages: dict[str, Sequence[Path]],
                  threshold: float = SSIM_THRESHOLD) -> Selection:
    """The slides to judge; ``pages`` holds each deck's renderings by role (``original``,
    ``target``, ``prediction``), slide order, hidden slides included."""
    touched = comparison.touched_slides()
    if any(c.slide == "deck" and (c.target == "theme" or c.field in _REPAINTS_ALL)
           for c in (*comparison.requested, *comparison.done)):
        touched |= {str(s.index) for s in original.slides}  # theme and master reach every slide
    to_target = {p.before.index: p.after for p in match_slides(original, target) if p.before}
    to_pred = {p.before.index: p.after for p in match_slides(original, prediction) if p.before}
    chosen, scores = [], {}
    for slide in original.slides:
        t, p = to_target.get(slide.index), to_pred.get(slide.index)
        t_num, p_num = (t.index if t else None), (p.index if p else None)
        here = _page(pages.get("original", ()), slide.index)
        values = []
        for other, number in (("target", t_num), ("prediction", p_num)):
            page = _page(pages.get(other, ()), number)
            values.append(ssim(here, page) if here and page else None)
        scores[str(slide.index)] = (values[0], values[1])
        reasons = []
        if str(slide.index) in touched:
            reasons.append("structural diff")
        if any(v is not None and v < threshold for v in values):
            reasons.append("SSIM")
        if t is None or p is None:
            reasons.append("removed")
        if reasons:
            chosen.append(SelectedSlide(slide.index, t_num, p_num, tuple(reasons), *values))
    matched_t = {s.index for s in to_target.values() if s}
    matched_p = {s.index for s in to_pred.values() if s}
    for slide in target.slides:
        if slide.index not in matched_t:
            chosen.append(SelectedSlide(None, slide.index, None, ("added in target",)))
    for slide in prediction.slides:
        if slide.index not in matched_p:
            chosen.append(SelectedSlide(None, None, slide.index, ("added in prediction",)))
    return Selection(tuple(chosen), len(original.slides), scores)
