"""FCF, the figure-code fidelity score: one number for image fidelity and code economy.

    FCF = E x (q_PSNR x q_SSIM x q_LPIPS x q_dE)^(1/4) x min(1, L_ref / L_gen)

* ``E`` is 1 only when both the image and the code exist (the program ran and made an image),
  else 0. Raster smuggling does not enter FCF (the issue's definition): it is its own value,
  ``smuggling``, which caps the program's judgments through the rubric.
* ``q_PSNR = 1 - 10^(-PSNR/20)`` (PSNR in dB, capped at 100); ``q_SSIM = clip(SSIM, 0, 1)``;
  ``q_LPIPS = 1 / (1 + LPIPS)``.
* ``q_dE`` maps mean CIEDE2000 through just-noticeable-difference breakpoints, linearly between
  (0.5, 1), (1.5, 0.8), (3, 0.6), (6, 0.4), (12, 0.2) and (24, 0), and 0 above 24: the paper
  names the breakpoints but not the values, so they are refig's, evenly spaced.
* ``L`` is the number of Pygments code tokens (:func:`refig_metric_code.tokens.token_count`).

When LPIPS cannot run (no torch, no local weights), the geometric mean is over the three other
factors and the value's detail says so.
"""

from __future__ import annotations

import numpy as np

DE_BREAKS = (0.5, 1.5, 3.0, 6.0, 12.0, 24.0)
DE_VALUES = (1.0, 0.8, 0.6, 0.4, 0.2, 0.0)


def q_psnr(psnr: float) -> float:
    return 1.0 - 10.0 ** (-min(psnr, 100.0) / 20.0)


def q_ssim(ssim: float) -> float:
    return float(min(1.0, max(0.0, ssim)))


def q_lpips(lpips: float) -> float:
    return 1.0 / (1.0 + max(0.0, lpips))


def q_delta_e(delta_e: float) -> float:
    """The just-noticeable-difference map of mean CIEDE2000 (1 for <= 0.5, 0 above 24)."""
    if delta_e > DE_BREAKS[-1]:
        return 0.0
    return float(np.interp(delta_e, DE_BREAKS, DE_VALUES))


def fcf(*, executed: bool, psnr: float | None, ssim: float | None, lpips: float | None,
        delta_e: float | None, ref_tokens: int, gen_tokens: int) -> float:
    """FCF of one program; 0 when it did not run or a needed image metric is missing."""
    if not executed or psnr is None or ssim is None or delta_e is None or gen_tokens == 0:
        return 0.0
    factors = [q_psnr(psnr), q_ssim(ssim), q_delta_e(delta_e)]
    if lpips is not None:
        factors.append(q_lpips(lpips))
    fidelity = float(np.prod(factors)) ** (1.0 / len(factors))
    return fidelity * min(1.0, ref_tokens / gen_tokens)
