"""Where refig keeps its own files on this machine (installed CLIs, prices, attempt homes)."""

from __future__ import annotations

import os
from pathlib import Path


def refig_home() -> Path:
    """Where refig keeps installed CLIs and per-attempt homes: ``$REFIG_HOME`` or XDG data."""
    if home := os.environ.get("REFIG_HOME"):
        return Path(home).expanduser()
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "refig"
