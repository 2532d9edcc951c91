"""The options of ``refig suite build orbit``."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import typer


def build_command(
    out: Path = typer.Option(..., "--out", "-o", help="The suite directory to write."),
    n: int = typer.Option(..., "--n", "-n", help="How many figures (one per paper)."),
    seed: int = typer.Option(..., "--seed", help="Random seed of the sampling order."),
    categories: str = typer.Option(
        "cs.AI,cs.CL,cs.CV,cs.LG", "--categories", help="Comma-separated arXiv categories."
    ),
    source: str | None = typer.Option(
        None, "--source",
        help="arXiv base URL (default $REFIG_ARXIV_URL or https://export.arxiv.org), or a "
             "folder of source packages named <id>v<N>.tar.gz.",
    ),
    cache: Path | None = typer.Option(
        None, "--cache", help="Download cache (default ~/.cache/refig/arxiv); makes reruns resume."
    ),
    start: str = typer.Option("2017-06", "--start", help="First month, YYYY-MM."),
    end: str | None = typer.Option(None, "--end", help="Last month, YYYY-MM (default: now)."),
    page_size: int = typer.Option(
        100, "--page-size", min=1, help="Listing entries drawn per window."
    ),
    delay: float = typer.Option(
        3.0, "--delay", min=0.0, help="Seconds between requests (arXiv asks 3)."
    ),
    retries: int = typer.Option(5, "--retries", min=0, help="Retries per request."),
    dpi: int = typer.Option(300, "--dpi", min=1, help="Resolution for PDF and EPS figures."),
    max_papers: int | None = typer.Option(
        None, "--max-papers", min=1, help="Stop after examining this many papers (default 50 x n)."
    ),
    created_at: datetime | None = typer.Option(
        None, "--created-at", help="Creation time recorded in suite.json (default: now)."
    ),
    quiet: bool = typer.Option(False, "-q", "--quiet", help="No progress bar."),
) -> Path:
    """ORBIT: overview figures from arXiv source packages, selected by caption evidence."""
    from refig_suite_orbit.build import build_orbit, parse_month

    build_orbit(
        out, n=n, seed=seed, categories=categories.split(","), source=source, cache=cache,
        start=parse_month(start), end=parse_month(end) if end else None, page_size=page_size,
        delay=delay, retries=retries, dpi=dpi, max_papers=max_papers, created_at=created_at,
        quiet=quiet,
    )
    return out
