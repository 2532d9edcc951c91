"""Difficulty tiers (Easy, Medium, Hard) from the visual complexity of the figure and the
complexity of its reference code.

Visual features, on the figure at 256 x 256 grey: edge density (share of Sobel magnitudes above
0.1 of the maximum possible), orientation entropy (bits, 8 bins of edge direction weighted by
magnitude), colour entropy (bits, of the RGB histogram quantised to 4 levels a channel),
foreground components (8-connected regions of non-background pixels), occupancy (share of
non-background pixels; background is the border colour). Code features: tokens, AST size, AST
depth, distinct plotting calls. Each feature becomes its percentile rank within the suite; a
task's score is the mean of its visual and its code ranks (each the mean of its features), and
the tiers split that score at the suite's 33rd and 67th percentiles. FigCodeBench does not give
its exact formula; this is refig's, documented in docs/figure-to-code.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from refig_toolkit_imaging import border_colour, open_image

from refig_metric_code.calls import plotting_calls
from refig_metric_code.syntax_tree import ParseFailure, syntax_tree
from refig_metric_code.tokens import token_count

TIERS = ("easy", "medium", "hard")


@dataclass(frozen=True)
class Complexity:
    """The raw features of one task."""

    visual: tuple[float, ...]
    code: tuple[float, ...]


def _entropy(counts: np.ndarray) -> float:
    p = counts[counts > 0] / counts.sum() if counts.sum() else np.array([1.0])
    return float(-(p * np.log2(p)).sum())


def visual_features(figure: Path) -> tuple[float, ...]:
    """Edge density, orientation entropy, colour entropy, components, occupancy."""
    from scipy import ndimage

    image = open_image(figure).resize((256, 256))
    rgb = np.asarray(image, dtype=np.float64)
    grey = rgb.mean(axis=2) / 255.0
    gx, gy = ndimage.sobel(grey, axis=1), ndimage.sobel(grey, axis=0)
    magnitude = np.hypot(gx, gy)
    edges = magnitude > 0.4  # 0.1 of the largest Sobel magnitude of a unit step (4)
    angles = np.arctan2(gy, gx)[edges] % np.pi
    orientation = np.histogram(angles, bins=8, range=(0, np.pi),
                               weights=magnitude[edges])[0]
    quantised = (rgb // 64).astype(int)
    colours = np.unique(quantised.reshape(-1, 3), axis=0, return_counts=True)[1]
    background = np.array(border_colour(image), dtype=np.float64)
    foreground = np.abs(rgb - background).max(axis=2) > 24
    _, components = ndimage.label(foreground, structure=np.ones((3, 3)))
    return (float(edges.mean()), _entropy(orientation), _entropy(colours.astype(float)),
            float(components), float(foreground.mean()))


def code_features(source: str, language: str) -> tuple[float, ...]:
    """Tokens, AST size, AST depth, distinct plotting calls."""
    try:
        tree = syntax_tree(source, language)
        size, depth = tree.size, tree.depth
    except ParseFailure:
        size = depth = 0
    return (float(token_count(source, language)), float(size), float(depth),
            float(len(plotting_calls(source, language))))


def _ranks(column: np.ndarray) -> np.ndarray:
    from scipy.stats import rankdata

    return (rankdata(column) - 1) / max(1, len(column) - 1)


def assign_tiers(items: Sequence[Complexity]) -> list[tuple[str, float]]:
    """Each task's tier and score, split at the 33rd and 67th percentiles of the scores."""
    if not items:
        return []
    visual = np.array([c.visual for c in items], dtype=np.float64)
    code = np.array([c.code for c in items], dtype=np.float64)
    score = 0.5 * np.column_stack([_ranks(c) for c in visual.T]).mean(axis=1) + \
        0.5 * np.column_stack([_ranks(c) for c in code.T]).mean(axis=1)
    low, high = np.percentile(score, [33, 67])
    tiers = ["easy" if s <= low else "medium" if s <= high else "hard" for s in score]
    return list(zip(tiers, score.astype(float).tolist(), strict=True))
