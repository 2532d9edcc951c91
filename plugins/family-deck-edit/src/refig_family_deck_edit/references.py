"""Renderings of the reference decks (original and target), made once per deck and kept.

The engine renders the artifact under evaluation; the references a deck is compared with are
rendered here with the same LibreOffice renderer (every slide, hidden ones exported), cached by
the deck's sha256 under ``$REFIG_CACHE_DIR/deck-pages`` (default ``~/.cache/refig``).
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any

from refig.plugin import cache_dir

_RENDERER: Any = None
_lock = threading.Lock()


def cache_root() -> Path:
    """Where reference decks' renderings are kept, one folder per deck sha256."""
    return cache_dir() / "deck-pages"


def _renderer() -> Any:
    """The LibreOffice renderer, made once through the plugin registry."""
    global _RENDERER
    if _RENDERER is None:
        from refig.plugin import make_plugin

        _RENDERER = make_plugin("renderer", "libreoffice")
    return _RENDERER


class RenderError(Exception):
    """A reference deck LibreOffice could not render."""


def reference_pages(path: Path, renderer: Any = None) -> tuple[Path, ...]:
    """Every slide of the deck at ``path`` as PNGs, rendered once per content."""
    from refig.plugin import RenderJob

    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    folder = cache_root() / digest
    if (folder / "done").is_file():
        return tuple(sorted(folder.glob("page-*.png")))
    with _lock:
        if (folder / "done").is_file():
            return tuple(sorted(folder.glob("page-*.png")))
        engine = renderer or _renderer()
        scratch = Path(tempfile.mkdtemp(prefix="deck-ref-"))
        try:
            [output] = engine.render([RenderJob(path=path, pages="all", hidden=True)], scratch)
            if output.error is not None or not output.pages:
                message = output.error.message if output.error else "no pages"
                raise RenderError(f"cannot render reference deck {path}: {message}")
            folder.mkdir(parents=True, exist_ok=True)
            for index, page in enumerate(output.pages):
                shutil.copyfile(page, folder / f"page-{index:03d}.png")
            (folder / "done").write_text(str(len(output.pages)))
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    return tuple(sorted(folder.glob("page-*.png")))
