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

import hashlib
import math
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageChops
from refig.plugin import OncePerKey
from refig_metric_image.perceptual import Lpips, LpipsUnavailable
from refig_toolkit_imaging import open_image

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


class Resized:
    """One decoded image at one side: its [0, 1] array, its CIELAB and its LPIPS features, each
    made once on first use (an image compared with many pays for its share once; thread-safe)."""

    def __init__(self, image: Image.Image, side: int):
        self.image, self.side = image, side
        self._lock = threading.RLock()
        self._rgb: np.ndarray | None = None
        self._lab: np.ndarray | None = None
        self._features: dict[int, tuple[object, list[np.ndarray]]] = {}

    @property
    def rgb(self) -> np.ndarray:
        """The image resized (:func:`unit_rgb`)."""
        with self._lock:
            if self._rgb is None:
                self._rgb = unit_rgb(self.image, self.side)
            return self._rgb

    def lab(self) -> np.ndarray:
        """``rgb2lab`` of the array."""
        from skimage.color import rgb2lab

        with self._lock:
            if self._lab is None:
                self._lab = rgb2lab(self.rgb)
            return self._lab

    def features(self, lpips: Lpips) -> list[np.ndarray]:
        """The LPIPS network's features of the array (per loaded network)."""
        model = lpips.model()
        with self._lock:
            if id(model) not in self._features:  # the model is kept with them: its id stays its
                self._features[id(model)] = (model, lpips.features01(self.rgb))
            return self._features[id(model)][1]


def compare(reference: Resized, candidate: Resized, lpips: Lpips) -> PixelScores:
    """The four metrics of two images of one size, each computed; LPIPS None with a note when
    its weights are absent."""
    return _scores(
        reference.rgb,
        candidate.rgb,
        lambda: float(np.mean(colour_differences(reference, candidate))),
        lambda: lpips.model().between(reference.features(lpips), candidate.features(lpips)),
    )


def _scores(
    ref: np.ndarray, cand: np.ndarray, delta_e: Callable[[], float], distance: Callable[[], float]
) -> PixelScores:
    """PSNR and SSIM of two [0, 1] arrays with the given mean CIEDE2000 and LPIPS."""
    from skimage.metrics import peak_signal_noise_ratio, structural_similarity

    with np.errstate(divide="ignore"):  # identical images: infinite, reported as the cap
        psnr = float(peak_signal_noise_ratio(ref, cand, data_range=1.0))
    ssim = float(structural_similarity(ref, cand, data_range=1.0, channel_axis=2))
    lpips_value, note = None, ""
    try:
        lpips_value = distance()
    except LpipsUnavailable as exc:
        note = str(exc)
    return PixelScores(PSNR_CAP if math.isinf(psnr) else psnr, ssim, lpips_value, delta_e(), note)


def colour_differences(reference: Resized, candidate: Resized) -> np.ndarray:
    """``deltaE_ciede2000`` of the two images' CIELAB, per pixel, computed only where the pixels
    differ: it is exactly 0 where they are equal (every term is a difference of equal values),
    and a figure's pair is mostly equal background. The same array, so the same mean."""
    from skimage.color import deltaE_ciede2000

    ref, cand = reference.lab(), candidate.lab()
    differ = (reference.rgb != candidate.rgb).any(axis=2)
    differences = np.zeros(differ.shape, dtype=ref.dtype)
    differences[differ] = deltaE_ciede2000(ref[differ], cand[differ])
    return differences


def identical(lpips: Lpips) -> PixelScores:
    """What :func:`compare` computes for two equal arrays, without computing it: PSNR infinite
    (the cap), SSIM 1 (each local term is a product over itself), CIEDE2000 0 and LPIPS 0 (every
    difference is zero). A reference program reproducing its figure pixel for pixel is the
    reference pass's common case; a test checks these against :func:`compare`."""
    try:
        lpips.model()
    except LpipsUnavailable as exc:
        return PixelScores(PSNR_CAP, 1.0, None, 0.0, str(exc))
    return PixelScores(PSNR_CAP, 1.0, 0.0, 0.0)


def plain_scores(reference: Path, generated: Path, side: int, lpips: Lpips) -> PixelScores:
    """The four metrics computed directly from both images, nothing reused or skipped: the
    definition the fast path (:func:`pixel_scores_at`) is checked against, and its baseline."""
    from skimage.color import deltaE_ciede2000, rgb2lab

    a, b = load_unit_rgb(reference, side), load_unit_rgb(generated, side)
    return _scores(
        a,
        b,
        lambda: float(np.mean(deltaE_ciede2000(rgb2lab(a), rgb2lab(b)))),
        lambda: lpips.distance01(a, b),
    )


def pixel_scores(
    reference: Path, generated: Path | None, lpips: Lpips | None = None, side: int = SIDE
) -> PixelScores:
    """The metrics of ``generated`` against ``reference`` at ``side`` px; all None when there is
    no image. ``lpips_note`` says why LPIPS is off here, for a failed run too (its weighted LPIPS
    is then unknown, not the worst value)."""
    return pixel_scores_at(reference, generated, lpips, (side,))[0]


#: References kept resized, with their CIELAB and LPIPS features (about 70 MB one at 1024 px):
#: a task's programs are scored together, so a few are enough.
MAX_REFERENCES = 4
_references: OncePerKey[tuple[str, tuple[int, ...]], tuple[Resized, ...]] = OncePerKey(
    MAX_REFERENCES
)


def reference_at(reference: Path, sides: tuple[int, ...]) -> tuple[Resized, ...]:
    """The reference image at each of ``sides``, decoded and prepared once per content (keyed by
    its sha256, so a file changed in place is read again)."""
    digest = hashlib.sha256(reference.read_bytes()).hexdigest()
    return _references.get((digest, sides), lambda: resized(open_image(reference), sides))


def resized(image: Image.Image, sides: tuple[int, ...]) -> tuple[Resized, ...]:
    """``image`` at each of ``sides``."""
    return tuple(Resized(image, side) for side in sides)


def same_pixels(a: Image.Image, b: Image.Image) -> bool:
    """Whether two decoded images hold the same pixels (then neither needs resizing): their
    difference has no non-zero pixel in any band (a fifth of the time of comparing copies of
    both images' bytes)."""
    return (a.mode == b.mode and a.size == b.size
            and ImageChops.difference(a, b).getbbox(alpha_only=False) is None)


def pixel_scores_at(
    reference: Path, generated: Path | None, lpips: Lpips | None, sides: tuple[int, ...]
) -> tuple[PixelScores, ...]:
    """:func:`pixel_scores` at each of ``sides``, each image decoded once, the reference's share
    reused across programs and equal images (decoded, or once resized) not compared: the same
    values, bit for bit."""
    lpips = lpips or Lpips()
    if generated is None:
        try:
            lpips.model()
        except LpipsUnavailable as exc:
            return tuple(PixelScores(None, None, None, None, str(exc)) for _ in sides)
        return tuple(PixelScores(None, None, None, None) for _ in sides)
    refs = reference_at(reference, sides)
    image = open_image(generated)
    if refs and same_pixels(refs[0].image, image):  # so every resized pair is equal too
        return tuple(identical(lpips) for _ in sides)
    gens = resized(image, sides)
    return tuple(
        identical(lpips) if np.array_equal(ref.rgb, gen.rgb) else compare(ref, gen, lpips)
        for ref, gen in zip(refs, gens, strict=True)
    )
