"""The options of ``refig suite build folder``."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import typer


def build_command(
    source: Path = typer.Option(..., "--from", help="The folder of figures to import."),
    out: Path = typer.Option(..., "--out", "-o", help="The suite directory to write."),
    name: str | None = typer.Option(None, "--name", help="Suite name (default: the folder's)."),
    provenance: Path | None = typer.Option(
        None, "--provenance",
        help="JSON or CSV naming each file's origin (default: manifest.json, provenance.json "
             "or provenance.csv in the folder, when present).",
    ),
    max_pixels: int = typer.Option(
        64_000_000, "--max-pixels", min=1, help="Largest image accepted."
    ),
    max_bytes: int = typer.Option(100_000_000, "--max-bytes", min=1, help="Largest file accepted."),
    skip_invalid: bool = typer.Option(
        False, "--skip-invalid", help="Skip undecodable or oversized files instead of stopping."
    ),
    created_at: datetime | None = typer.Option(
        None, "--created-at", help="Creation time recorded in suite.json (default: now)."
    ),
    quiet: bool = typer.Option(False, "-q", "--quiet", help="No progress bar."),
) -> Path:
    """Turn a folder of figures (PNG, JPEG, WebP, GIF, BMP, TIFF, PDF) into a suite."""
    from refig_suite_folder.build import build_folder

    build_folder(source, out, name=name, provenance_file=provenance, max_pixels=max_pixels,
                 max_bytes=max_bytes, skip_invalid=skip_invalid, created_at=created_at,
                 quiet=quiet)
    return out
