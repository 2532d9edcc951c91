"""Fixtures for every test of the workspace: what a test keeps stays out of the user's caches."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from refig.home import cache_dir
from refig.running.workspace import default_root

#: What the session fixture sets, for this process and the commands it starts.
SET = ("REFIG_CACHE_DIR", "REFIG_WORKSPACE_ROOT")


@pytest.fixture(scope="session", autouse=True)
def temporary_refig_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """refig's cache (``$REFIG_CACHE_DIR``: reference-deck renderings, downloads) in the session's
    temporary folder, not ``~/.cache/refig``; a test that wants its own still sets the variable.

    Attempt directories stay where a user's go (``$REFIG_WORKSPACE_ROOT`` is pinned to the default
    first): some CLIs refuse a home in the system temp folder, and each attempt removes its own.
    """
    before = {name: os.environ.get(name) for name in SET}
    os.environ["REFIG_WORKSPACE_ROOT"] = str(default_root())
    cache = tmp_path_factory.mktemp("refig-cache")
    os.environ["REFIG_CACHE_DIR"] = str(cache)
    assert cache_dir() == cache
    yield cache
    for name, value in before.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
