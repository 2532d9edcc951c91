"""Colour statistics of figure pixels: the commonest colour, distances, the page colour."""

from __future__ import annotations

import numpy as np

from refig_harness_baseline.cv.scene import RGB


def mode(pixels: np.ndarray, step: int = 16) -> RGB | None:
    """The most frequent colour of ``pixels`` (N x 3), refined to the mean of its bin."""
    if len(pixels) == 0:
        return None
    quant = (pixels // step).astype(np.int32)
    keys = quant[:, 0] * 4096 + quant[:, 1] * 64 + quant[:, 2]
    values, counts = np.unique(keys, return_counts=True)
    top = values[np.argmax(counts)]
    mean = pixels[keys == top].mean(axis=0)
    return int(mean[0]), int(mean[1]), int(mean[2])


def distance(pixels: np.ndarray, color: RGB) -> np.ndarray:
    """Euclidean RGB distance of each pixel to ``color``."""
    diff = pixels.astype(np.int32) - np.asarray(color, dtype=np.int32)
    return np.sqrt((diff * diff).sum(axis=-1))


def background(img: np.ndarray) -> RGB:
    """The page colour: the commonest colour of the outermost pixels."""
    border = np.concatenate([img[0], img[-1], img[:, 0], img[:, -1]])
    return mode(border) or (255, 255, 255)
