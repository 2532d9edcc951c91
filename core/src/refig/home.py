"""Where refig keeps its own files on this machine: installed CLIs, prices, homes, caches."""

from __future__ import annotations

import os
from pathlib import Path


def refig_home() -> Path:
    """Where refig keeps installed CLIs and per-attempt homes: ``$REFIG_HOME`` or XDG data."""
    if home := os.environ.get("REFIG_HOME"):
        return Path(home).expanduser()
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "refig"


def cache_dir() -> Path:
    """Where refig keeps what it can make again (attempt directories, reference renderings,
    downloads): ``$REFIG_CACHE_DIR``, else ``refig`` in the XDG cache (``~/.cache/refig``)."""
    if cache := os.environ.get("REFIG_CACHE_DIR"):
        return Path(cache).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "refig"
