"""Helpers for testing refig and its plugins against real parts."""

from __future__ import annotations

import shutil
from typing import Any

#: Flags for headless Debian Chromium on a machine with no network: without the background
#: networking ones it keeps trying to reach Google's hosts.
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
)


def chromium_launch() -> dict[str, Any] | None:
    """Playwright ``chromium.launch`` arguments for the system Chromium, or None when absent.

    refig's browser tests drive Debian's ``chromium`` package (``apt-get install chromium``)
    rather than a browser downloaded by ``playwright install``.
    """
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        return None
    return {"executable_path": binary, "args": list(CHROMIUM_ARGS)}
