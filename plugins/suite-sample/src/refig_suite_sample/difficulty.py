"""How big and busy a generated figure is, per difficulty level."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Difficulty(StrEnum):
    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


@dataclass(frozen=True)
class Preset:
    """Ranges are inclusive ``(low, high)``; probabilities apply per candidate."""

    width: tuple[int, int]
    aspect: tuple[float, float]
    panels: tuple[int, int]
    cols: tuple[int, int]
    rows: tuple[int, int]
    fill: float  # chance that an extra slot in a column holds a node
    extra_flow: float
    vertical: float
    skips: tuple[int, int]
    feedback: tuple[int, int]
    dashed: float
    bidirectional: float
    glyphs: tuple[int, int]
    operators: tuple[int, int]
    groups: tuple[int, int]
    edge_labels: tuple[int, int]
    max_lines: int
    max_crossings: int
    duplicate_labels: bool
    panel_title: float  # chance a single-panel figure still has a title


PRESETS: dict[Difficulty, Preset] = {
    Difficulty.EASY: Preset(
        width=(1600, 2000), aspect=(1.8, 3.2), panels=(1, 1), cols=(3, 4), rows=(1, 2),
        fill=0.5, extra_flow=0.0, vertical=0.0, skips=(0, 0), feedback=(0, 0), dashed=0.1,
        bidirectional=0.0, glyphs=(0, 1), operators=(0, 0), groups=(0, 0), edge_labels=(0, 0),
        max_lines=1, max_crossings=0, duplicate_labels=False, panel_title=0.3,
    ),
    Difficulty.MEDIUM: Preset(
        width=(2000, 2600), aspect=(1.6, 3.2), panels=(1, 2), cols=(3, 5), rows=(2, 3),
        fill=0.6, extra_flow=0.25, vertical=0.25, skips=(0, 1), feedback=(0, 1), dashed=0.2,
        bidirectional=0.12, glyphs=(1, 2), operators=(0, 1), groups=(1, 1), edge_labels=(0, 2),
        max_lines=2, max_crossings=1, duplicate_labels=False, panel_title=0.5,
    ),
    Difficulty.HARD: Preset(
        width=(2400, 3000), aspect=(1.5, 3.5), panels=(2, 3), cols=(2, 4), rows=(2, 4),
        fill=0.7, extra_flow=0.4, vertical=0.35, skips=(1, 2), feedback=(1, 2), dashed=0.25,
        bidirectional=0.15, glyphs=(2, 4), operators=(1, 2), groups=(1, 3), edge_labels=(1, 4),
        max_lines=2, max_crossings=3, duplicate_labels=True, panel_title=1.0,
    ),
}
