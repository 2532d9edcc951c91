"""Fixtures for every test of the workspace: what a test keeps stays out of the user's caches,
and one ``refig demo`` serves every test that reads a demo's output."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from refig.home import cache_dir
from refig.running.workspace import default_root

#: What the session fixture sets, for this process and the commands it starts.
SET = ("REFIG_CACHE_DIR", "REFIG_WORKSPACE_ROOT")

#: Sample figures of the shared demo: the fewest ``refig demo`` takes.
DEMO_TASKS = 2


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


@pytest.fixture(autouse=True)
def process_registry_restored() -> Iterator[None]:
    """Each test leaves the registry this process's stages use (``refig.engine.plugins``) as it
    found it, and nothing built from another: a test that evaluates with a registry of its own
    (a plugin disabled, a test plugin added) does not decide which families, or which viewer
    panels, a later test in the same worker finds."""
    from refig.engine import plugins

    before = plugins._registry
    yield
    if plugins._registry is not before:
        plugins._registry = before
        # what was built from the test's registry: the viewer's family panels
        if (viewer := sys.modules.get("refig_reporter_html.panels")) is not None:
            viewer.panels.cache_clear()


@dataclass(frozen=True)
class DemoRun:
    """The output folder of one ``refig demo --tasks DEMO_TASKS`` and what it printed.

    Shared by the session: read it, or copy it before adding to it.
    """

    folder: Path
    printed: str
    tasks: int = DEMO_TASKS


@pytest.fixture(scope="session")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> DemoRun:
    """``refig demo -q`` run once in its own process, as a user runs it: once for the whole
    test run, when pytest-xdist spreads it over several workers (the first to ask makes it,
    the others wait for it under a file lock and read what it printed)."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):  # each worker's base folder is in the common one
        shared = shared.parent
    with (shared / "demo.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        folder, printed = shared / "demo", shared / "demo.printed"
        if not printed.exists():
            command = [str(Path(sys.executable).parent / "refig"), "demo", "--out", str(folder),
                       "--tasks", str(DEMO_TASKS), "-q"]
            done = subprocess.run(command, capture_output=True, text=True, timeout=1800,
                                  check=False)
            assert done.returncode == 0, done.stdout + done.stderr
            printed.write_text(done.stdout, encoding="utf-8")
        return DemoRun(folder, printed.read_text(encoding="utf-8"))
