"""The options of ``refig suite build deck-sample`` and ``refig suite build pptarena``."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import typer


def deck_sample_command(
    out: Path = typer.Option(..., "--out", "-o", help="The suite directory to write."),
    n: int | None = typer.Option(None, "--n", "-n",
                                 help="How many tasks (default: one per edit recipe, 25)."),
    seed: int = typer.Option(0, "--seed", help="Random seed: the same seed gives the same bytes."),
    recipe: list[str] = typer.Option([], "--recipe", help="Only these edit recipes, in turn "
                                     "(repeatable; `a+b` for a combination)."),
    created_at: datetime | None = typer.Option(
        None, "--created-at", help="Creation time recorded in suite.json (default: fixed)."),
    quiet: bool = typer.Option(False, "-q", "--quiet", help="No progress bar."),
) -> Path:
    """Generate deck-edit tasks with exact targets and edit specifications."""
    from refig_family_deck_edit.sample.build import build_deck_sample

    build_deck_sample(out, n=n, seed=seed, recipes=recipe, created_at=created_at, quiet=quiet)
    return out


def pptarena_command(
    out: Path = typer.Option(..., "--out", "-o", help="The suite directory to write."),
    source: Path = typer.Option(..., "--from", help="The unpacked PPTArena release."),
    cases: Path | None = typer.Option(
        None, "--cases", help="The case list (default: DIR/evaluation_pairs_refined.json)."),
    hard: Path | None = typer.Option(
        None, "--hard", help="The hard-subset list (default: DIR/hard_subset.json if present)."),
    skip_invalid: bool = typer.Option(
        False, "--skip-invalid",
        help="Skip (and record in suite.json) cases that would be refused, instead of failing."),
    quiet: bool = typer.Option(False, "-q", "--quiet", help="No progress bar."),
) -> Path:
    """Import released PPTArena cases, refusing targets identical to their originals."""
    from refig_family_deck_edit.pptarena import build_pptarena

    build_pptarena(out, source, cases=cases, hard=hard, skip_invalid=skip_invalid, quiet=quiet)
    return out
