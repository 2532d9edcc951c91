"""Finding installed font files by name (for measuring text and drawing symbol templates)."""

from __future__ import annotations

import functools
from pathlib import Path

FONT_DIRS = (Path("/usr/share/fonts"), Path("/usr/local/share/fonts"))


@functools.cache
def font_file(name: str) -> Path | None:
    """The first installed file called ``name`` under the system font folders, if any."""
    for folder in FONT_DIRS:
        found = next(folder.rglob(name), None) if folder.is_dir() else None
        if found is not None:
            return found
    return None
