"""``--keep-workspaces`` keeps them: the README's "one harness, then another" sequence, as two
real ``refig run`` processes on one workspace root (the first process has exited when the second
starts, which is what made kept directories look stale)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from refig.plugins import Registry
from refig.records import PluginKind


def refig(*args: str) -> subprocess.CompletedProcess[str]:
    command = [str(Path(sys.executable).parent / "refig"), *args]
    return subprocess.run(command, capture_output=True, text=True, env=dict(os.environ),
                          timeout=600, check=False)


def test_kept_workspaces_survive_the_next_run_of_another_harness(tmp_path: Path) -> None:
    names = Registry.load(warn=lambda _: None).names(PluginKind.HARNESS)
    if not {"cv", "raster-paste"} <= set(names) or "sample" not in Registry.load(
            warn=lambda _: None).names(PluginKind.SUITE):
        pytest.skip("the baseline harnesses and the sample suite are not installed")
    suite, root = tmp_path / "suite", tmp_path / "attempts"
    built = refig("suite", "build", "sample", "--out", str(suite), "-n", "2", "-q")
    assert built.returncode == 0, built.stderr
    first = refig("run", "--suite", str(suite), "--harness", "raster-paste", "--out",
                  str(tmp_path / "run"), "--workspace-root", str(root), "--keep-workspaces",
                  "-q")
    assert first.returncode == 0, first.stderr
    kept = sorted(p for p in root.iterdir() if (p / "workspace").is_dir())
    assert len(kept) == 2
    second = refig("run", "--suite", str(suite), "--harness", "cv", "--out",
                   str(tmp_path / "run"), "--workspace-root", str(root), "-q")
    assert second.returncode == 0, second.stderr
    for directory in kept:
        assert (directory / "workspace" / "slide.pptx").is_file(), directory
    assert sorted(p for p in root.iterdir() if (p / "workspace").is_dir()) == kept
