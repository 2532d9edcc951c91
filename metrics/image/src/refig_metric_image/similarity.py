"""Pixel similarity of two images of one size, through scikit-image.

* SSIM as Wang et al. (2004) define it: on luminance (ITU-R 601 luma), an 11-tap Gaussian window
  of sigma 1.5, K1 = 0.01, K2 = 0.03, population (not sample) covariance, data range 255.
* PSNR over the RGB channels, data range 255; identical images give ``PSNR_CAP`` rather than
  infinity, so the value stays a finite number in JSON.
* CIEDE2000: the mean per-pixel colour difference in CIELAB (D65), ``deltaE_ciede2000``.
"""

from __future__ import annotations

import numpy as np
from PIL import Image

PSNR_CAP = 100.0


def ssim(a: Image.Image, b: Image.Image) -> float:
    """Structural similarity of the luminance of ``a`` and ``b`` (1 for identical images)."""
    # scikit-image is imported where it is used: it pulls in scipy, seconds that `refig check`
    # without a source figure never needs
    from skimage.metrics import structural_similarity

    return float(
        structural_similarity(
            np.asarray(a.convert("L"), dtype=np.float64),
            np.asarray(b.convert("L"), dtype=np.float64),
            gaussian_weights=True,
            sigma=1.5,
            K1=0.01,
            K2=0.03,
            use_sample_covariance=False,
            data_range=255.0,
        )
    )


def psnr(a: Image.Image, b: Image.Image) -> float:
    """Peak signal-to-noise ratio in dB over RGB, at most ``PSNR_CAP``."""
    from skimage.metrics import peak_signal_noise_ratio

    x, y = np.asarray(a.convert("RGB")), np.asarray(b.convert("RGB"))
    if np.array_equal(x, y):
        return PSNR_CAP
    return min(PSNR_CAP, float(peak_signal_noise_ratio(x, y, data_range=255)))


def lab(image: Image.Image) -> np.ndarray:
    """``image`` in CIELAB (D65), read-only: a source's is computed once and shared."""
    from skimage.color import rgb2lab

    converted = rgb2lab(np.asarray(image.convert("RGB"), dtype=np.float64) / 255.0)
    converted.flags.writeable = False
    return converted


def ciede2000(a: Image.Image | np.ndarray, b: Image.Image | np.ndarray) -> float:
    """Mean CIEDE2000 colour difference (0 for identical images; about 2.3 is just noticeable)
    of two images, or of their :func:`lab` arrays."""
    from skimage.color import deltaE_ciede2000

    lab_a = a if isinstance(a, np.ndarray) else lab(a)
    lab_b = b if isinstance(b, np.ndarray) else lab(b)
    return float(deltaE_ciede2000(lab_a, lab_b).mean())
