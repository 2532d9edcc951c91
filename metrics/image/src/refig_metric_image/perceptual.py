"""LPIPS (Zhang et al. 2018, AlexNet, v0.1) as a numpy forward pass: no torch, no network.

The network is the ``lpips`` package's ``LPIPS(net="alex", version="0.1")``: inputs RGB in
[-1, 1], its scaling layer (shift -0.030, -0.088, -0.188; scale 0.458, 0.448, 0.450), AlexNet's
five ReLU outputs (conv 11x11/4 pad 2, max-pool 3/2, conv 5x5 pad 2, max-pool 3/2, three conv
3x3 pad 1), each unit-normalised over channels (eps 1e-10), squared differences weighted by the
linear layers and averaged over space, summed over the five layers. The weights come from
:mod:`refig_metric_image.lpips_weights`; equality with the package's torch forward pass to 1e-5
is a test (reference values recorded from torch, ``tests/data/lpips_reference.json``).
"""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from PIL import Image

from refig_metric_image.lpips_weights import CHECKPOINT, WeightsError, alexnet_lpips, weights_dir

SHIFT = np.array([-0.030, -0.088, -0.188], np.float32)
SCALE = np.array([0.458, 0.448, 0.450], np.float32)
#: (stride, padding, max-pool before this convolution) of AlexNet's five convolutions.
_LAYOUT = ((4, 2, False), (1, 2, True), (1, 1, True), (1, 1, False), (1, 1, False))


class LpipsUnavailable(Exception):
    """LPIPS cannot run here; the message says why and how to fix it."""


def _conv(x: np.ndarray, kernel: np.ndarray, bias: np.ndarray, stride: int, pad: int) -> np.ndarray:
    """A 2-D convolution of an HWC array with an HWIO kernel, then ReLU."""
    kh, kw = kernel.shape[:2]
    padded = np.pad(x, ((pad, pad), (pad, pad), (0, 0)))
    windows = sliding_window_view(padded, (kh, kw), axis=(0, 1))[::stride, ::stride]
    out = np.tensordot(windows, kernel, axes=([2, 3, 4], [2, 0, 1])) + bias
    return np.maximum(out, 0.0, out=out)


def _max_pool(x: np.ndarray) -> np.ndarray:
    """3 x 3 max-pooling with stride 2, no padding (torch's MaxPool2d(3, 2))."""
    return sliding_window_view(x, (3, 3), axis=(0, 1))[::2, ::2].max(axis=(3, 4))


class AlexLpips:
    """LPIPS v0.1 over AlexNet, from numpy weights."""

    def __init__(self, path: Path):
        self.convs, self.lins = alexnet_lpips(path)

    def features(self, rgb: np.ndarray) -> list[np.ndarray]:
        """The five unit-normalised ReLU outputs of an HWC image in [-1, 1]."""
        x = (rgb.astype(np.float32) - SHIFT) / SCALE
        out = []
        for (kernel, bias), (stride, pad, pool) in zip(self.convs, _LAYOUT, strict=True):
            if pool:
                x = _max_pool(x)
            x = _conv(x, kernel, bias, stride, pad)
            norm = np.sqrt(np.sum(x * x, axis=2, keepdims=True))
            out.append(x / (norm + 1e-10))
        return out

    def distance(self, a: np.ndarray, b: np.ndarray) -> float:
        """LPIPS of two HWC images in [-1, 1] of one size."""
        return self.between(self.features(a), self.features(b))

    def between(self, a: list[np.ndarray], b: list[np.ndarray]) -> float:
        """LPIPS of two images given by their :meth:`features` (an image compared with many
        computes its own once)."""
        total = 0.0
        for fa, fb, lin in zip(a, b, self.lins, strict=True):
            total += float(np.mean(((fa - fb) ** 2) @ lin))
        return total


class Lpips:
    """LPIPS from the weights in a directory (the option, ``$REFIG_LPIPS_WEIGHTS`` or the user
    cache); thread-safe, loaded once per file."""

    _models: dict[Path, AlexLpips] = {}  # noqa: RUF012 - a process-wide cache shared by instances
    _lock = threading.Lock()

    def __init__(self, weights: str | Path | None = None):
        self.weights = weights

    @property
    def path(self) -> Path:
        """The checkpoint it reads."""
        return weights_dir(self.weights) / CHECKPOINT

    def model(self) -> AlexLpips:
        """The loaded network, or :class:`LpipsUnavailable` saying how to get the weights."""
        path = self.path
        with self._lock:
            if path not in self._models:
                try:
                    self._models[path] = AlexLpips(path)
                except WeightsError as exc:
                    raise LpipsUnavailable(f"LPIPS is off: {exc}") from exc
            return self._models[path]

    def distance(self, a: Image.Image, b: Image.Image) -> float:
        """LPIPS distance of two RGB images of one size (0 for identical images)."""
        return self.distance01(unit_rgb(a), unit_rgb(b))

    def distance01(self, a: np.ndarray, b: np.ndarray) -> float:
        """LPIPS of two HWC float arrays in [0, 1], mapped to [-1, 1] as ``2x - 1``."""
        return self.model().between(self.features01(a), self.features01(b))

    def features01(self, rgb: np.ndarray) -> list[np.ndarray]:
        """The network's features of an HWC float array in [0, 1] (mapped as ``2x - 1``)."""
        return self.model().features(rgb * np.float32(2.0) - np.float32(1.0))


def unit_rgb(image: Image.Image) -> np.ndarray:
    """An image as HWC float32 RGB in [0, 1]."""
    return np.asarray(image.convert("RGB"), dtype=np.float32) / np.float32(255.0)
