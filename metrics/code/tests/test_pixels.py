"""FigCodeBench's image metrics, against an independent implementation of its
``image_metrics.py`` definition (written here from the definition, on images drawn here)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageOps
from refig_metric_code.pixels import FCF_SIDE, WORST, load_unit_rgb, pixel_scores, same_pixels
from skimage.color import deltaE_ciede2000, rgb2lab
from skimage.metrics import peak_signal_noise_ratio, structural_similarity


def draw(path: Path, size: tuple[int, int], shift: int, alpha: bool,
         colour: tuple[int, int, int] = (200, 30, 30)) -> Path:
    image = Image.new("RGBA" if alpha else "RGB", size, (0, 0, 0, 0) if alpha else "white")
    pen = ImageDraw.Draw(image)
    pen.rectangle((20 + shift, 30, 200 + shift, 150), fill=(*colour, 255))
    pen.line((0, 0, size[0], size[1]), fill=(0, 0, 255, 255), width=5)
    image.save(path)
    return path


def benchmark_rgb(path: Path, side: int) -> np.ndarray:
    """The benchmark's loading: EXIF orientation, alpha on white, RGB, bicubic, /255 float32."""
    with Image.open(path) as image:
        image = ImageOps.exif_transpose(image)
        if image.mode in {"RGBA", "LA"} or "transparency" in image.info:
            rgba = image.convert("RGBA")
            image = Image.alpha_composite(Image.new("RGBA", rgba.size, "white"), rgba)
        image = image.convert("RGB").resize((side, side), Image.Resampling.BICUBIC)
        return np.asarray(image, dtype=np.float32) / 255.0


def benchmark_scores(ref: Path, gen: Path, side: int) -> tuple[float, float, float]:
    a, b = benchmark_rgb(ref, side), benchmark_rgb(gen, side)
    psnr = float(peak_signal_noise_ratio(a, b, data_range=1.0))
    return (100.0 if math.isinf(psnr) else psnr,
            float(structural_similarity(a, b, data_range=1.0, channel_axis=2)),
            float(np.mean(deltaE_ciede2000(rgb2lab(a), rgb2lab(b)))))


def test_loading_equals_the_benchmark_s(tmp_path: Path) -> None:
    path = draw(tmp_path / "a.png", (640, 480), 0, alpha=True)
    image = load_unit_rgb(path, 256)
    assert image.shape == (256, 256, 3) and image.dtype == np.float32
    assert tuple(image[5, 250]) == (1.0, 1.0, 1.0)  # transparent became white, not black
    assert np.array_equal(image, benchmark_rgb(path, 256))


@pytest.mark.parametrize("side", [256, FCF_SIDE])
def test_scores_equal_the_benchmark_s_definition(tmp_path: Path, side: int) -> None:
    ref = draw(tmp_path / "ref.png", (640, 480), 0, alpha=False)
    gen = draw(tmp_path / "gen.png", (800, 600), 25, alpha=True)
    scores = pixel_scores(ref, gen, side=side)
    psnr, ssim, delta_e = benchmark_scores(ref, gen, side)
    assert scores.psnr == pytest.approx(psnr, abs=1e-9)
    assert scores.ssim == pytest.approx(ssim, abs=1e-9)
    assert scores.ciede2000 == pytest.approx(delta_e, abs=1e-9)


def test_ssim_sees_colour_a_red_line_is_not_a_blue_one(tmp_path: Path) -> None:
    # refig's former luma SSIM read 0.999 here: the two lines have nearly the same luma.
    red, blue = (Image.new("RGB", (256, 256), "white") for _ in range(2))
    ImageDraw.Draw(red).line([(10, 240), (128, 20), (246, 200)], fill=(255, 0, 0), width=6)
    ImageDraw.Draw(blue).line([(10, 240), (128, 20), (246, 200)], fill=(0, 0, 255), width=6)
    red.save(tmp_path / "red.png")
    blue.save(tmp_path / "blue.png")
    scores = pixel_scores(tmp_path / "red.png", tmp_path / "blue.png")
    assert scores.ssim < 0.95  # luma SSIM: 0.991
    assert scores.ssim == pytest.approx(benchmark_scores(tmp_path / "red.png",
                                                         tmp_path / "blue.png", 256)[1])


def test_identical_images_cap_psnr_and_failures_weigh_worst(tmp_path: Path) -> None:
    ref = draw(tmp_path / "ref.png", (300, 200), 0, alpha=False)
    same = pixel_scores(ref, ref)
    assert same.psnr == 100.0 and same.ssim == pytest.approx(1.0) and same.ciede2000 == 0.0
    failed = pixel_scores(ref, None)
    assert failed.psnr is None
    assert {k: failed.weighted(k) for k in WORST} == WORST
    assert same.weighted("psnr") == 100.0


def test_equal_pixels_are_told_from_one_channel_of_one_pixel_off_by_one() -> None:
    base = Image.new("RGB", (40, 30), "white")
    ImageDraw.Draw(base).line((0, 0, 39, 29), fill=(10, 120, 200), width=3)
    assert same_pixels(base, base.copy())
    for x, y, band in ((0, 0, 0), (39, 29, 2), (17, 11, 1)):  # corners, middle; each band
        off = base.copy()
        pixel = list(off.getpixel((x, y)))
        pixel[band] += 1 if pixel[band] < 255 else -1
        off.putpixel((x, y), tuple(pixel))
        assert not same_pixels(base, off), (x, y, band)
    assert not same_pixels(base, base.crop((0, 0, 40, 29)))
    assert not same_pixels(base, base.convert("RGBA"))
