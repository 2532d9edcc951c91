"""What the renderer's tests share: finding the live LibreOffice processes of a directory."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest


def live_converters(tmp: Path) -> set[int]:
    """Live ``soffice.bin`` processes whose profile lies under ``tmp``."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if b"soffice.bin" in cmdline and str(tmp).encode() in cmdline and state not in {"Z", "X"}:
            found.add(int(entry.name))
    return found


@pytest.fixture
def converters() -> Callable[[Path], set[int]]:
    """:func:`live_converters`, for the tests that watch LibreOffice start and die."""
    return live_converters
