"""Pixel similarity of two images of one size, with scikit-image's definitions.

* SSIM as Wang et al. (2004) define it: on luminance (ITU-R 601 luma), an 11-tap Gaussian window
  of sigma 1.5 with reflected edges, K1 = 0.01, K2 = 0.03, population (not sample) covariance,
  data range 255, in float32, the mean over the map without its 5-pixel rim:
  ``structural_similarity`` exactly, its five Gaussian filters run through OpenCV's separable
  filter (13x less CPU than scipy's), within 1e-5 of float64 scikit-image.
* PSNR over the RGB channels, data range 255; identical images give ``PSNR_CAP`` rather than
  infinity, so the value stays a finite number in JSON.
* CIEDE2000: the mean per-pixel colour difference in CIELAB (D65), ``deltaE_ciede2000``. A figure
  and a slide hold few colours, so the difference is computed once per distinct pair of colours
  and weighted by how many pixels hold that pair (pixels of one colour on both sides differ by 0):
  the same mean, seven times cheaper.

Each measure takes images or :class:`Side` objects: a side holds what one image contributes
(its luma's local means and variances, its packed colours), so an image compared with many
(a source with each of its artifacts) pays for its share once.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property
from typing import Any

import numpy as np
from PIL import Image
from refig_toolkit_imaging import as_rgb

PSNR_CAP = 100.0
#: SSIM's Gaussian window: sigma, and the radius scikit-image derives (truncate 3.5 sigmas).
SIGMA = 1.5
RADIUS = int(3.5 * SIGMA + 0.5)
C1, C2 = (0.01 * 255.0) ** 2, (0.03 * 255.0) ** 2


def _window() -> np.ndarray:
    """The 1-D Gaussian taps scipy's ``gaussian_filter`` uses (normalised to sum 1)."""
    taps = np.exp(-0.5 * (np.arange(-RADIUS, RADIUS + 1) / SIGMA) ** 2)
    return taps / taps.sum()


WINDOW = _window()


def blur(values: np.ndarray) -> np.ndarray:
    """``values`` (float32) through the Gaussian window along both axes, edges reflected
    (``d c b a | a b c d``, scipy's ``mode="reflect"``)."""
    import cv2  # imported where used, like scikit-image: `refig check` may never need it

    return cv2.sepFilter2D(values, -1, WINDOW, WINDOW, borderType=cv2.BORDER_REFLECT)


@dataclass(frozen=True)
class Luma:
    """One image's luma less its rounded average (``values``) and that difference's local mean
    (``centred``); the Gaussian-weighted local mean of the luma itself, its square, and the
    local variance."""

    values: np.ndarray
    centred: np.ndarray
    mean: np.ndarray
    mean_squared: np.ndarray
    variance: np.ndarray


class Side:
    """One image's share of SSIM, PSNR and CIEDE2000, each computed on first use."""

    def __init__(self, image: Image.Image):
        self.image = as_rgb(image)

    @property
    def size(self) -> tuple[int, int]:
        return self.image.size

    @cached_property
    def rgb(self) -> np.ndarray:
        """The pixels, ``(height, width, 3)`` uint8."""
        return np.asarray(self.image)

    @cached_property
    def packed(self) -> np.ndarray:
        """Each pixel's RGB as one integer ``r << 16 | g << 8 | b`` (flat, uint32)."""
        pixels = self.rgb.reshape(-1, 3)
        packed = pixels[:, 0].astype(np.uint32) << 16
        packed |= pixels[:, 1].astype(np.uint32) << 8
        packed |= pixels[:, 2]
        return packed

    @cached_property
    def luma(self) -> Luma:
        luma = np.asarray(self.image.convert("L"), dtype=np.float32)
        # (co)variances do not change when a constant is taken off; off the average, the
        # float32 products stay small and E[x^2] - E[x]^2 cancels far less (a white page's
        # 255^2 would leave float32 a few digits for the variance)
        offset = np.float32(round(float(luma.mean())))
        values = luma - offset
        centred = blur(values)
        mean = centred + offset
        return Luma(values, centred, mean, mean * mean, blur(values * values) - centred * centred)


Comparable = Image.Image | Side


def side(image: Comparable) -> Side:
    """``image`` as a :class:`Side` (itself when it is one)."""
    return image if isinstance(image, Side) else Side(image)


def _same_size(a: Side, b: Side) -> None:
    if a.size != b.size:
        raise ValueError(f"images of different sizes: {a.size} and {b.size}")


def ssim(a: Comparable, b: Comparable) -> float:
    """Structural similarity of the luminance of ``a`` and ``b`` (1 for identical images)."""
    a, b = side(a), side(b)
    _same_size(a, b)
    x, y = a.luma, b.luma
    if min(x.values.shape) < 2 * RADIUS + 1:
        raise ValueError(f"SSIM needs at least {2 * RADIUS + 1} pixels a side, not {a.size}")
    covariance = blur(x.values * y.values) - x.centred * y.centred
    # the order of scikit-image's float32 operations, so the rounding is its own
    numerator = (2 * x.mean * y.mean + C1) * (2 * covariance + C2)
    denominator = (x.mean_squared + y.mean_squared + C1) * (x.variance + y.variance + C2)
    score = numerator / denominator
    return float(score[RADIUS:-RADIUS, RADIUS:-RADIUS].mean(dtype=np.float64))


def psnr(a: Comparable, b: Comparable) -> float:
    """Peak signal-to-noise ratio in dB over RGB, at most ``PSNR_CAP``.

    The squared error is summed in integers: exact, and the same float ``peak_signal_noise_ratio``
    computes (its float64 sum of integer squares is exact too), without its float copies.
    """
    a, b = side(a), side(b)
    _same_size(a, b)
    difference = np.subtract(a.rgb, b.rgb, dtype=np.int32)
    difference *= difference
    squared = int(difference.sum(dtype=np.int64))
    if squared == 0:
        return PSNR_CAP
    error = squared / difference.size
    return min(PSNR_CAP, float(10 * np.log10(255.0**2 / error)))


def _colours(colours: np.ndarray) -> np.ndarray:
    """Packed 24-bit colours as a ``(1, n, 3)`` RGB image in 0..1, as ``rgb2lab`` takes."""
    channels = np.stack([(colours >> 16) & 255, (colours >> 8) & 255, colours & 255], axis=-1)
    return (channels.astype(np.float64) / 255.0)[None]


def _lab(colours: np.ndarray) -> np.ndarray:
    """CIELAB of packed colours as a ``(1, n, 3)`` image, converting each distinct colour once
    (a colour recurs in many pairs)."""
    from skimage.color import rgb2lab

    distinct, index = np.unique(colours, return_inverse=True)
    return rgb2lab(_colours(distinct))[:, index]


@cache
def _threadpools() -> Any:
    """The process's BLAS thread pools, found once (after scipy's BLAS is loaded)."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def ciede2000(a: Comparable, b: Comparable) -> float:
    """Mean CIEDE2000 colour difference of two images of one size (0 for identical images;
    about 2.3 is just noticeable): per distinct colour pair, weighted by its pixel count."""
    from skimage.color import deltaE_ciede2000

    a, b = side(a), side(b)
    _same_size(a, b)
    differ = a.packed != b.packed
    if not differ.any():
        return 0.0
    keys = (a.packed[differ].astype(np.uint64) << np.uint64(24)) | b.packed[differ]
    pairs, counts = np.unique(keys, return_counts=True)
    # rgb2lab's matrix product goes to OpenBLAS, whose threads then spin on every core: on the
    # benchmark's corpus that was as much CPU as the whole metric (the pass already runs one
    # worker per core, so a second thread gains nothing)
    with _threadpools().limit(limits=1, user_api="blas"):
        differences = deltaE_ciede2000(_lab(pairs >> np.uint64(24)),
                                       _lab(pairs & np.uint64(0xFFFFFF)))
        return float(np.dot(differences[0], counts) / differ.size)
