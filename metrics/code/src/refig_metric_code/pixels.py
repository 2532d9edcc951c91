"""FigCodeBench's image metrics, as its ``image_metrics.py`` computes them, raw and weighted.

Each image is decoded (size-bounded), composited on white where it has transparency, converted
to RGB, resized to ``side`` x ``side`` with Pillow's bicubic filter and scaled to float32 in
[0, 1]. Then, with scikit-image: PSNR ``peak_signal_noise_ratio(ref, cand, data_range=1.0)``
(an infinite value, identical images, is 100); SSIM ``structural_similarity(ref, cand,
data_range=1.0, channel_axis=2)`` (7 x 7 uniform window per RGB channel, averaged); CIEDE2000
the mean of ``deltaE_ciede2000(rgb2lab(ref), rgb2lab(cand))``; LPIPS AlexNet v0.1 on the same
arrays mapped to [-1, 1] (:mod:`refig_metric_image.perceptual`). The benchmark reports these at
256 px and computes FCF from them at 1024 px. ``weighted`` gives a failed run the benchmark's
worst value of each (PSNR 0, SSIM 0, LPIPS 1, CIEDE2000 100), so a mean over all tasks counts
failures.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image
from refig.plugin import open_image
from refig_metric_image.perceptual import Lpips, LpipsUnavailable

SIDE = 256
FCF_SIDE = 1024
PSNR_CAP = 100.0
WORST = {"psnr": 0.0, "ssim": 0.0, "lpips": 1.0, "ciede2000": 100.0}


def unit_rgb(image: Image.Image, side: int) -> np.ndarray:
    """A decoded RGB image as float32 in [0, 1], ``side`` x ``side`` bicubic."""
    resized = image.resize((side, side), Image.Resampling.BICUBIC)
    return np.asarray(resized, dtype=np.float32) / np.float32(255.0)


def load_unit_rgb(path: Path, side: int) -> np.ndarray:
    """The image as float32 RGB in [0, 1], alpha on white, ``side`` x ``side`` bicubic."""
    return unit_rgb(open_image(path), side)


@dataclass(frozen=True)
class PixelScores:
    """The four image metrics of one generated image against its reference."""

    psnr: float | None
    ssim: float | None
    lpips: float | None
    ciede2000: float | None
    lpips_note: str = ""

    def weighted(self, name: str) -> float:
        """The metric, or its worst value when the program made no image."""
        value = getattr(self, name)
        return WORST[name] if value is None else float(value)


def compare(reference: np.ndarray, candidate: np.ndarray, lpips: Lpips) -> PixelScores:
    """The four metrics of two [0, 1] RGB arrays of one size; LPIPS None with a note when its
    weights are absent."""
    from skimage.color import deltaE_ciede2000, rgb2lab
    from skimage.metrics import peak_signal_noise_ratio, structural_similarity

    with np.errstate(divide="ignore"):  # identical images: infinite, reported as the cap
        psnr = float(peak_signal_noise_ratio(reference, candidate, data_range=1.0))
    ssim = float(structural_similarity(reference, candidate, data_range=1.0, channel_axis=2))
    delta_e = float(np.mean(deltaE_ciede2000(rgb2lab(reference), rgb2lab(candidate))))
    distance, note = None, ""
    try:
        distance = lpips.distance01(reference, candidate)
    except LpipsUnavailable as exc:
        note = str(exc)
    return PixelScores(PSNR_CAP if math.isinf(psnr) else psnr, ssim, distance, delta_e, note)


def pixel_scores(reference: Path, generated: Path | None, lpips: Lpips | None = None,
                 side: int = SIDE) -> PixelScores:
    """The metrics of ``generated`` against ``reference`` at ``side`` px; all None when there is
    no image. ``lpips_note`` says why LPIPS is off here, for a failed run too (its weighted LPIPS
    is then unknown, not the worst value)."""
    return pixel_scores_at(reference, generated, lpips, (side,))[0]


def pixel_scores_at(reference: Path, generated: Path | None, lpips: Lpips | None,
                    sides: tuple[int, ...]) -> tuple[PixelScores, ...]:
    """:func:`pixel_scores` at each of ``sides``, each image decoded once."""
    lpips = lpips or Lpips()
    if generated is None:
        try:
            lpips.model()
        except LpipsUnavailable as exc:
            return tuple(PixelScores(None, None, None, None, str(exc)) for _ in sides)
        return tuple(PixelScores(None, None, None, None) for _ in sides)
    ref, gen = open_image(reference), open_image(generated)
    return tuple(compare(unit_rgb(ref, side), unit_rgb(gen, side), lpips) for side in sides)
