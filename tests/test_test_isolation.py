"""Tests keep refig's cache in the session's temporary folder, never in ``~/.cache/refig``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from refig.home import cache_dir
from refig.running.workspace import default_root
from refig_family_deck_edit.references import cache_root


def test_refig_caches_lie_in_the_sessions_temporary_folder(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    base = tmp_path_factory.getbasetemp()
    for path in (cache_dir(), cache_root()):
        assert path.is_relative_to(base), path
        assert not path.is_relative_to(Path.home() / ".cache"), path


def test_the_cache_follows_refig_cache_dir_then_xdg(monkeypatch: pytest.MonkeyPatch,
                                                    tmp_path: Path) -> None:
    monkeypatch.delenv("REFIG_WORKSPACE_ROOT")
    monkeypatch.setenv("REFIG_CACHE_DIR", str(tmp_path / "mine"))
    assert cache_dir() == tmp_path / "mine"
    assert default_root() == tmp_path / "mine" / "attempts"
    monkeypatch.delenv("REFIG_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "refig"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cache_dir() == Path(os.path.expanduser("~/.cache/refig"))
    monkeypatch.setenv("REFIG_WORKSPACE_ROOT", str(tmp_path / "ws"))
    assert default_root() == tmp_path / "ws"
