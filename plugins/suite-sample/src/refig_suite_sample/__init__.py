"""refig suite `sample`: generated overview figures with exact annotations, offline."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from refig.plugin import Suite


def build_sample(out: Path | str, n: int = 6, seed: int = 0, difficulty: str = "medium", *,
                 created_at: datetime | None = None, quiet: bool = True,
                 width: tuple[int, int] | None = None) -> Suite:
    """Generate the sample suite at ``out`` (what ``refig demo`` uses); see :mod:`.build`."""
    from refig_suite_sample.build import build_sample as build

    return build(out, n=n, seed=seed, difficulty=difficulty, created_at=created_at, quiet=quiet,
                 width=width)


__all__ = ["build_sample"]
