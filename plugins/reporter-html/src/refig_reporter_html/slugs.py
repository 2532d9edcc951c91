"""File names for ids: readable, safe on every file system, unique (a hash suffix)."""

from __future__ import annotations

import hashlib
import re


def slug(identifier: str) -> str:
    """A file name for an id, the same in the static site and the live viewer."""
    readable = re.sub(r"[^A-Za-z0-9._-]+", "-", identifier).strip("-.")[:60] or "item"
    return f"{readable}-{hashlib.sha1(identifier.encode()).hexdigest()[:8]}"
