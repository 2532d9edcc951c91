"""Image metrics after FigCodeBench's preprocessing, against scikit-image on drawn images."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw
from refig_metric_code.pixels import WORST, pixel_scores, preprocess
from skimage.color import deltaE_ciede2000, rgb2lab
from skimage.metrics import peak_signal_noise_ratio, structural_similarity


def draw(path: Path, size: tuple[int, int], shift: int, alpha: bool) -> Path:
    image = Image.new("RGBA" if alpha else "RGB", size, (0, 0, 0, 0) if alpha else "white")
    pen = ImageDraw.Draw(image)
    pen.rectangle((20 + shift, 30, 200 + shift, 150), fill=(200, 30, 30, 255))
    pen.line((0, 0, size[0], size[1]), fill=(0, 0, 255, 255), width=5)
    image.save(path)
    return path


def test_preprocessing_composites_alpha_on_white_and_resizes_bicubic(tmp_path: Path) -> None:
    path = draw(tmp_path / "a.png", (640, 480), 0, alpha=True)
    image = preprocess(path)
    assert image.size == (256, 256) and image.mode == "RGB"
    assert image.getpixel((250, 5)) == (255, 255, 255)  # transparent became white, not black
    rgba = Image.open(path)
    white = Image.alpha_composite(Image.new("RGBA", rgba.size, "white"), rgba).convert("RGB")
    expected = white.resize((256, 256), Image.Resampling.BICUBIC)
    assert np.array_equal(np.asarray(image), np.asarray(expected))


def test_scores_equal_scikit_image_on_the_preprocessed_pair(tmp_path: Path) -> None:
    ref = draw(tmp_path / "ref.png", (640, 480), 0, alpha=False)
    gen = draw(tmp_path / "gen.png", (800, 600), 25, alpha=True)
    scores = pixel_scores(ref, gen)
    a, b = (np.asarray(preprocess(p)) for p in (ref, gen))
    assert scores.psnr == pytest.approx(peak_signal_noise_ratio(a, b, data_range=255))
    la = np.asarray(Image.fromarray(a).convert("L"), dtype=np.float64)
    lb = np.asarray(Image.fromarray(b).convert("L"), dtype=np.float64)
    assert scores.ssim == pytest.approx(structural_similarity(
        la, lb, gaussian_weights=True, sigma=1.5, use_sample_covariance=False, data_range=255))
    assert scores.ciede2000 == pytest.approx(
        deltaE_ciede2000(rgb2lab(a / 255.0), rgb2lab(b / 255.0)).mean())


def test_identical_images_cap_psnr_and_failures_weigh_worst(tmp_path: Path) -> None:
    ref = draw(tmp_path / "ref.png", (300, 200), 0, alpha=False)
    same = pixel_scores(ref, ref)
    assert same.psnr == 100.0 and same.ssim == pytest.approx(1.0) and same.ciede2000 == 0.0
    failed = pixel_scores(ref, None)
    assert failed.psnr is None
    assert {k: failed.weighted(k) for k in WORST} == WORST
    assert same.weighted("psnr") == 100.0
