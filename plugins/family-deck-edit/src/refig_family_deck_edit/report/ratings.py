"""Expert 0-5 ratings of IF and VQ for deck-edit cases, read from the run directory.

``RUN/deck-ratings.jsonl`` holds one rating a line: ``{"annotator", "task", "config", "if",
"vq"}`` (integers 0-5, blinded: the rater saw the original, the target and the edited deck). The
report correlates each judge's case means with the raters' means per axis (PPTArena: Pearson 0.72
for IF, 0.81 for VQ).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from refig.plugin import RefigError

RATINGS_FILE = "deck-ratings.jsonl"


class Rating(BaseModel):
    """One expert's scores of one case."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    annotator: str = Field(min_length=1)
    task: str
    config: str
    instruction: int = Field(alias="if", ge=0, le=5)
    visual: int = Field(alias="vq", ge=0, le=5)


def load_ratings(run: Path) -> list[Rating]:
    """Every rating of the run (none when the file is absent); a bad line is an error naming it."""
    path = run / RATINGS_FILE
    if not path.is_file():
        return []
    found = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            found.append(Rating.model_validate_json(line))
        except ValidationError as exc:
            raise RefigError(f"line {number} is not a deck rating: {exc.errors()[0]['msg']}",
                             path=path, fix='write {"annotator", "task", "config", "if", "vq"} '
                             "with scores 0-5") from exc
    return found


def mean_ratings(ratings: list[Rating]) -> dict[tuple[str, str], tuple[float, float]]:
    """(config, task) -> the raters' mean IF and VQ."""
    grouped: dict[tuple[str, str], list[Rating]] = defaultdict(list)
    for rating in ratings:
        grouped[(rating.config, rating.task)].append(rating)
    return {key: (sum(r.instruction for r in rs) / len(rs), sum(r.visual for r in rs) / len(rs))
            for key, rs in grouped.items()}
