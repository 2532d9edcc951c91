"""Image metrics after FigCodeBench's preprocessing, raw and weighted.

Both images are composited on white (alpha), converted to RGB and resized to 256 x 256 with
bicubic resampling (Pillow), then compared with refig's image metrics: PSNR over RGB (capped at
100 dB), SSIM on luminance, mean CIEDE2000, LPIPS (AlexNet, optional). ``raw`` values exist
for programs that ran; ``weighted`` ones give a failed run the worst value of each metric
(PSNR 0, SSIM 0, LPIPS 1, CIEDE2000 100), so a mean over all tasks counts failures.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PIL import Image
from refig.plugin import open_image
from refig_metric_image.perceptual import Lpips, LpipsUnavailable
from refig_metric_image.similarity import ciede2000, psnr, ssim

SIDE = 256
WORST = {"psnr": 0.0, "ssim": 0.0, "lpips": 1.0, "ciede2000": 100.0}


def preprocess(path: Path) -> Image.Image:
    """Alpha on white, RGB, 256 x 256 bicubic."""
    return open_image(path).resize((SIDE, SIDE), Image.Resampling.BICUBIC)


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


def pixel_scores(reference: Path, generated: Path | None, lpips: Lpips | None = None
                 ) -> PixelScores:
    """The metrics of ``generated`` against ``reference``; all None when there is no image.
    ``lpips_note`` says why LPIPS is off here, for a failed run too (its weighted LPIPS is then
    unknown, not the worst value)."""
    lpips = lpips or Lpips()
    if generated is None:
        try:
            lpips.model()
        except LpipsUnavailable as exc:
            return PixelScores(None, None, None, None, str(exc))
        return PixelScores(None, None, None, None)
    a, b = preprocess(reference), preprocess(generated)
    distance, note = None, ""
    try:
        distance = lpips.distance(a, b)
    except LpipsUnavailable as exc:
        note = str(exc)
    return PixelScores(psnr(a, b), ssim(a, b), distance, ciede2000(a, b), note)
