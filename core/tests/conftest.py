"""Fixtures for core tests: real distributions on a temporary ``sys.path`` entry."""

from __future__ import annotations

import importlib
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

MakeDist = Callable[..., Path]


@pytest.fixture
def site_dir(tmp_path, monkeypatch) -> Path:
    """A directory on sys.path where tests install distributions (dist-info + module)."""
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.delenv("REFIG_LOAD_PLUGINS", raising=False)
    monkeypatch.delenv("REFIG_DISABLE_PLUGINS", raising=False)
    monkeypatch.delenv("REFIG_STRICT_PLUGINS", raising=False)
    yield site
    for name in [m for m in sys.modules if m.startswith("testplug_")]:
        del sys.modules[name]


@pytest.fixture
def make_dist(site_dir) -> MakeDist:
    """Install a real (metadata-discoverable) distribution whose ``hooks`` module is ``source``.

    ``importlib.metadata`` finds it exactly as it finds a pip-installed plugin: through a
    ``.dist-info`` directory with an ``entry_points.txt`` naming group ``refig``.
    """

    def make(dist: str, source: str, version: str = "1.0", module: str | None = None) -> Path:
        module = module or "testplug_" + dist.replace("-", "_")
        package = site_dir / module
        package.mkdir()
        (package / "__init__.py").write_text("")
        (package / "hooks.py").write_text(textwrap.dedent(source))
        info = site_dir / f"{dist.replace('-', '_')}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n"
        )
        (info / "entry_points.txt").write_text(f"[refig]\n{dist} = {module}.hooks\n")
        importlib.invalidate_caches()
        return package

    return make
