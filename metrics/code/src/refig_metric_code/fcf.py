"""FCF, the figure-code fidelity score, as FigCodeBench's ``compute_fcf_metrics.py`` computes it.

    FCF = E x (q_PSNR x q_SSIM x q_LPIPS x q_dE)^(1/4) x min(1, L_ref / L_gen)

* ``E`` is 1 only when both the image and the code exist (the program ran and made an image),
  else 0 (FCF 0). Raster smuggling does not enter FCF: it is its own value, ``smuggling``.
* The four image metrics are computed at 1024 x 1024 (:mod:`.pixels`, ``FCF_SIDE``), not at the
  256 px of the image-metric columns.
* ``q_PSNR = 1 - 10^(-max(PSNR, 0)/20)``; ``q_SSIM = clip(SSIM, 0, 1)``;
  ``q_LPIPS = 1 / (1 + max(LPIPS, 0))``.
* ``q_dE`` is Yang, Ming and Yu's (2012) score Q / 5 of mean CIEDE2000: 1 below 0.5; from each
  breakpoint 0.5, 1.5, 3, 6, 12 (Q = 5, 4, 3, 2, 1) falling linearly by one point to the next
  (1.5, 3, 6, 12, 24); 0 above 24.
* ``L`` is a program's length. The benchmark counts Llama-3-8B "effective tokens"; no
  well-kept package on PyPI ships that tokenizer offline, so refig counts the benchmark's own
  CrystalBLEU tokens (:func:`refig_metric_code.crystal.crystal_tokens`) instead
  (docs/figure-to-code.md says what that changes).

A program that ran but has no LPIPS has no FCF (None), as in the benchmark, where it has no row.
"""

from __future__ import annotations

import itertools
import math

DE_BREAKS = (0.5, 1.5, 3.0, 6.0, 12.0, 24.0)


def q_psnr(psnr: float) -> float:
    return 1.0 - 10.0 ** (-max(psnr, 0.0) / 20.0)


def q_ssim(ssim: float) -> float:
    return float(min(1.0, max(0.0, ssim)))


def q_lpips(lpips: float) -> float:
    return 1.0 / (1.0 + max(0.0, lpips))


def q_delta_e(delta_e: float) -> float:
    """Yang et al.'s Q / 5 of mean CIEDE2000 (1 below 0.5, 0 above 24)."""
    if not math.isfinite(delta_e) or delta_e > DE_BREAKS[-1]:
        return 0.0
    if delta_e < DE_BREAKS[0]:
        return 1.0
    for step, (lower, upper) in enumerate(itertools.pairwise(DE_BREAKS)):
        if delta_e <= upper:
            quality = (5 - step) - (delta_e - lower) / (upper - lower)
            return min(1.0, max(0.0, quality / 5.0))
    return 0.0


def fcf(*, executed: bool, psnr: float | None, ssim: float | None, lpips: float | None,
        delta_e: float | None, ref_tokens: int, gen_tokens: int) -> float | None:
    """FCF of one program at 1024 px: 0 when it did not run, None when it ran without LPIPS."""
    if not executed or psnr is None or ssim is None or delta_e is None or gen_tokens <= 0:
        return 0.0
    if lpips is None:
        return None
    fidelity = (q_psnr(psnr) * q_ssim(ssim) * q_lpips(lpips) * q_delta_e(delta_e)) ** 0.25
    return fidelity * min(1.0, ref_tokens / gen_tokens)
