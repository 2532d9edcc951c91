"""Pixel similarity of two images of one size, through scikit-image.

* SSIM as Wang et al. (2004) define it: on luminance (ITU-R 601 luma), an 11-tap Gaussian window
  of sigma 1.5, K1 = 0.01, K2 = 0.03, population (not sample) covariance, data range 255, computed
  in float32 (within 4e-6 of float64 on the benchmark's corpus, 1.5x less CPU).
* PSNR over the RGB channels, data range 255; identical images give ``PSNR_CAP`` rather than
  infinity, so the value stays a finite number in JSON.
* CIEDE2000: the mean per-pixel colour difference in CIELAB (D65), ``deltaE_ciede2000``. A figure
  and a slide hold few colours, so the difference is computed once per distinct pair of colours
  and weighted by how many pixels hold that pair: the same mean, seven times cheaper.
"""

from __future__ import annotations

import numpy as np
from PIL import Image
from refig.plugin import as_rgb

PSNR_CAP = 100.0


def ssim(a: Image.Image, b: Image.Image) -> float:
    """Structural similarity of the luminance of ``a`` and ``b`` (1 for identical images)."""
    # scikit-image is imported where it is used: it pulls in scipy, seconds that `refig check`
    # without a source figure never needs
    from skimage.metrics import structural_similarity

    return float(
        structural_similarity(
            np.asarray(a.convert("L"), dtype=np.float32),
            np.asarray(b.convert("L"), dtype=np.float32),
            gaussian_weights=True,
            sigma=1.5,
            K1=0.01,
            K2=0.03,
            use_sample_covariance=False,
            data_range=255.0,
        )
    )


def psnr(a: Image.Image, b: Image.Image) -> float:
    """Peak signal-to-noise ratio in dB over RGB, at most ``PSNR_CAP``.

    The squared error is summed in integers: exact, and the same float ``peak_signal_noise_ratio``
    computes (its float64 sum of integer squares is exact too), without its float copies.
    """
    x = np.asarray(as_rgb(a), dtype=np.int32)
    y = np.asarray(as_rgb(b), dtype=np.int32)
    if x.shape != y.shape:
        raise ValueError(f"images of different sizes: {x.shape} and {y.shape}")
    difference = x - y
    squared = int(np.einsum("ijk,ijk->", difference, difference, dtype=np.int64))
    if squared == 0:
        return PSNR_CAP
    error = squared / difference.size
    return min(PSNR_CAP, float(10 * np.log10(255.0**2 / error)))


def _colours(colours: np.ndarray) -> np.ndarray:
    """Packed 24-bit colours as a ``(1, n, 3)`` RGB image in 0..1, as ``rgb2lab`` takes."""
    channels = np.stack([(colours >> 16) & 255, (colours >> 8) & 255, colours & 255], axis=-1)
    return (channels.astype(np.float64) / 255.0)[None]


def _packed(image: Image.Image) -> np.ndarray:
    """Each pixel's RGB as one integer ``r << 16 | g << 8 | b``."""
    pixels = np.asarray(as_rgb(image)).reshape(-1, 3).astype(np.int64)
    return (pixels[:, 0] << 16) | (pixels[:, 1] << 8) | pixels[:, 2]


def ciede2000(a: Image.Image, b: Image.Image) -> float:
    """Mean CIEDE2000 colour difference of two images of one size (0 for identical images;
    about 2.3 is just noticeable): per distinct colour pair, weighted by its pixel count."""
    from skimage.color import deltaE_ciede2000, rgb2lab

    if a.size != b.size:
        raise ValueError(f"images of different sizes: {a.size} and {b.size}")
    pairs, counts = np.unique((_packed(a) << 24) | _packed(b), return_counts=True)
    differences = deltaE_ciede2000(rgb2lab(_colours(pairs >> 24)),
                                   rgb2lab(_colours(pairs & 0xFFFFFF)))
    return float(np.dot(differences[0], counts) / counts.sum())
