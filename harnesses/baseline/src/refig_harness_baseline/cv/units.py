"""The foreground threshold and the size units every detector of a figure shares."""

from __future__ import annotations

import numpy as np

#: Colour distance (RGB, 0-441) above which a pixel is foreground against its background.
FG_DISTANCE = 48
def sizes(img: np.ndarray) -> tuple[int, int]:
    """Minimum box side and a small-structure unit for this image size."""
    side = max(img.shape[:2])
    return max(14, round(0.012 * side)), max(2, round(0.0025 * side))
