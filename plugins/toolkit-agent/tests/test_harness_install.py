"""Finding and installing pinned harness CLIs (with real executables standing in for the CLIs)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from refig.errors import RefigError
from refig.home import refig_home
from refig.records import CliPin
from refig_toolkit_agent.install import cli_version, install, locate, prefix, require

PIN = CliPin(package="@example/tool", version="1.2.3", bin="tool",
             version_pattern=r"(\d+\.\d+\.\d+) \(Tool\)")


def fake_cli(directory: Path, version: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "tool"
    path.write_text(f"#!/bin/sh\necho '{version} (Tool)'\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("REFIG_HOME", str(tmp_path / "refig"))
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    return tmp_path


def test_refig_home_and_prefix_follow_the_environment(home: Path) -> None:
    assert refig_home() == home / "refig"
    assert prefix("tool", PIN) == home / "refig" / "harnesses" / "tool" / "1.2.3"


def test_a_missing_cli_says_how_to_install_it(home: Path) -> None:
    found = locate("tool", PIN)
    assert (found.source, found.ok, found.fix) == ("missing", False, "refig harness install tool")
    with pytest.raises(RefigError, match=r"needs @example/tool@1\.2\.3"):
        require("tool", PIN)


def test_a_cli_on_path_counts_only_at_the_pinned_version(home: Path) -> None:
    fake_cli(home / "bin", "1.2.2")
    found = locate("tool", PIN)
    assert (found.source, found.found, found.ok) == ("path", "1.2.2", False)
    assert "pins 1.2.3" in (found.fix or "")
    fake_cli(home / "bin", "1.2.3")
    assert locate("tool", PIN).ok


def test_the_refig_managed_install_comes_first(home: Path) -> None:
    fake_cli(home / "bin", "9.9.9")
    fake_cli(prefix("tool", PIN) / "node_modules" / ".bin", "1.2.3")
    found = require("tool", PIN)
    assert found.source == "refig" and found.found == "1.2.3"
    assert found.as_json()["ok"] is True
    # Already installed: install() returns it without calling npm (PATH has no npm here).
    assert install("tool", PIN).path == found.path


def test_install_without_npm_explains_the_fix(home: Path) -> None:
    with pytest.raises(RefigError) as info:
        install("tool", PIN)
    assert "npm" in str(info.value) and "nodejs" in (info.value.fix or "")


def test_the_version_check_does_not_hand_the_cli_a_key(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pinned CLI is not sandboxed while it reports its version: it must see no key."""
    cli = home / "bin" / "tool"
    cli.parent.mkdir(parents=True)
    leak = home / "leak.txt"
    cli.write_text(f"#!/bin/sh\n/usr/bin/env > {leak}\necho '1.2.3 (Tool)'\n")
    cli.chmod(cli.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-planted-secret")
    assert cli_version(cli, PIN) == "1.2.3"
    assert "sk-ant-planted-secret" not in leak.read_text()
