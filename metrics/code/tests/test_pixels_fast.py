"""The fast path of FigCodeBench's image metrics (a reference prepared once, equal images not
compared) gives the values of the plain path bit for bit: each metric computed afresh from both
images, as the benchmark's ``image_metrics.py`` does."""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw
from refig_metric_code import pixels
from refig_metric_code.pixels import FCF_SIDE, SIDE, pixel_scores_at, plain_scores
from refig_metric_image.perceptual import Lpips
from skimage.color import deltaE_ciede2000


def figure(path: Path, seed: int, alpha: bool = False) -> Path:
    """A chart-like drawing with noise, so every metric has something to measure."""
    rng = np.random.default_rng(seed)
    image = Image.new("RGBA" if alpha else "RGB", (900, 700), "white")
    pen = ImageDraw.Draw(image)
    points = [(60 + 40 * i, int(350 + 200 * math.sin(i / 3 + seed))) for i in range(20)]
    pen.line(points, fill=(31, 119, 180, 255), width=4)
    for i in range(8):
        top = int(rng.integers(300, 600))
        pen.rectangle((80 + 95 * i, top, 140 + 95 * i, 650), fill=(255, 127, 14, 255))
    pen.text((100, 40), f"Figure {seed}", fill=(0, 0, 0, 255))
    noisy = np.asarray(image).copy()
    noisy[100:200, 600:850, :3] = rng.integers(0, 256, size=(100, 250, 3), dtype=np.uint8)
    Image.fromarray(noisy).save(path)
    return path


def plain(reference: Path, generated: Path, side: int, lpips: Lpips) -> tuple:
    s = plain_scores(reference, generated, side, lpips)
    return (s.psnr, s.ssim, s.lpips, s.ciede2000)


def fast(reference: Path, generated: Path, lpips: Lpips) -> list[tuple]:
    return [
        (s.psnr, s.ssim, s.lpips, s.ciede2000)
        for s in pixel_scores_at(reference, generated, lpips, (SIDE, FCF_SIDE))
    ]


def test_equal_images_score_what_the_plain_path_computes(tmp_path: Path) -> None:
    # two files, one with an (opaque) alpha channel: other bytes, the same pixels
    reference = figure(tmp_path / "ref.png", 1)
    again = figure(tmp_path / "again.png", 1, alpha=True)
    assert reference.read_bytes() != again.read_bytes()
    lpips = Lpips()
    got = fast(reference, again, lpips)
    assert got == [plain(reference, again, side, lpips) for side in (SIDE, FCF_SIDE)]
    assert got[0][:2] == (100.0, 1.0) and got[0][3] == 0.0


def test_a_reference_prepared_once_scores_every_program_as_afresh(tmp_path: Path) -> None:
    reference = figure(tmp_path / "ref.png", 2)
    lpips = Lpips()
    for seed in (3, 4):  # the second program finds the reference prepared
        generated = figure(tmp_path / f"gen{seed}.png", seed)
        assert fast(reference, generated, lpips) == [
            plain(reference, generated, side, lpips) for side in (SIDE, FCF_SIDE)
        ]


def test_a_reference_changed_in_place_is_read_again(tmp_path: Path) -> None:
    reference, generated = figure(tmp_path / "ref.png", 5), figure(tmp_path / "gen.png", 6)
    lpips = Lpips()
    first = pixel_scores_at(reference, generated, lpips, (SIDE,))
    figure(reference, 7)  # same path, other pixels
    second = pixel_scores_at(reference, generated, lpips, (SIDE,))
    assert second != first
    assert (second[0].psnr, second[0].ssim, second[0].lpips, second[0].ciede2000) == plain(
        reference, generated, SIDE, lpips
    )


def test_prepared_references_are_bounded(tmp_path: Path) -> None:
    generated = figure(tmp_path / "gen.png", 0)
    for seed in range(pixels.MAX_REFERENCES + 2):
        pixel_scores_at(figure(tmp_path / f"ref{seed}.png", 10 + seed), generated, Lpips(), (SIDE,))
    assert len(pixels._references) == pixels.MAX_REFERENCES


def test_threads_scoring_one_reference_agree_with_the_plain_path(tmp_path: Path) -> None:
    reference = figure(tmp_path / "ref.png", 20)
    programs = [figure(tmp_path / f"gen{seed}.png", seed) for seed in (21, 22, 23, 24)]
    lpips = Lpips()
    pixels._references.clear()
    with ThreadPoolExecutor(4) as pool:
        scores = list(
            pool.map(lambda g: pixel_scores_at(reference, g, lpips, (SIDE,))[0], programs)
        )
    for generated, s in zip(programs, scores, strict=True):
        assert (s.psnr, s.ssim, s.lpips, s.ciede2000) == plain(reference, generated, SIDE, lpips)


def test_colour_differences_where_pixels_differ_are_the_whole_array(tmp_path: Path) -> None:
    from refig_metric_code.pixels import Resized, colour_differences
    from refig_toolkit_imaging import open_image

    reference = open_image(figure(tmp_path / "ref.png", 30))
    noise = Image.fromarray(np.random.default_rng(31).integers(0, 256, (700, 900, 3), np.uint8))
    for other in (open_image(figure(tmp_path / "gen.png", 32)), noise):  # some, all pixels differ
        a, b = Resized(reference, SIDE), Resized(other, SIDE)
        assert np.array_equal(colour_differences(a, b), deltaE_ciede2000(a.lab(), b.lab()))


def test_images_equal_only_once_resized_score_as_the_plain_path(tmp_path: Path) -> None:
    from refig_metric_code.pixels import Resized
    from refig_toolkit_imaging import open_image

    reference = figure(tmp_path / "ref.png", 40)
    pixels_ = np.asarray(open_image(reference)).copy()
    pixels_[350, 450, 0] ^= 1  # one level of one pixel: lost at 256 px, not at 1024 px
    generated = tmp_path / "gen.png"
    Image.fromarray(pixels_).save(generated)
    small = [Resized(open_image(path), SIDE).rgb for path in (reference, generated)]
    assert np.array_equal(*small)
    lpips = Lpips()
    assert fast(reference, generated, lpips) == [
        plain(reference, generated, side, lpips) for side in (SIDE, FCF_SIDE)
    ]
