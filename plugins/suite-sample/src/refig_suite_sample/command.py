"""The options of ``refig suite build sample``."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import typer


def build_command(
    out: Path = typer.Option(..., "--out", "-o", help="The suite directory to write."),
    n: int = typer.Option(6, "--n", "-n", help="How many figures."),
    seed: int = typer.Option(0, "--seed", help="Random seed: the same seed gives the same bytes."),
    difficulty: str = typer.Option(
        "medium", "--difficulty", help="easy, medium or hard: size, density and styles."
    ),
    created_at: datetime | None = typer.Option(
        None, "--created-at", help="Creation time recorded in suite.json (default: fixed)."
    ),
    width: tuple[int, int] | None = typer.Option(
        None, "--width", help="LOW HIGH: draw each figure's width (px) from this range instead "
        "of the difficulty's; the layout scales with it.",
    ),
    quiet: bool = typer.Option(False, "-q", "--quiet", help="No progress bar."),
) -> Path:
    """Generate overview figures from random graphs, each with its exact annotation."""
    from refig_suite_sample.build import build_sample

    build_sample(out, n=n, seed=seed, difficulty=difficulty, created_at=created_at, quiet=quiet,
                 width=width)
    return out
