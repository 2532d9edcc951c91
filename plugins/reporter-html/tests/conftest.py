"""Runs to view, all made by refig's own commands: ``refig demo`` (a copy of the session's
``demo_run`` from the root conftest: one run per family, cv and raster-paste, identity and
oracle, reference, blank and smuggle, each evaluated with its family's proxy judge), then real
Claude Code attempts (one configuration succeeds, one ends on HTTP 400) and real Codex attempts
against the scripted model server added to the figure-to-slide run and evaluated with
LibreOffice and the ``metrics`` judge. The agent's last words are hostile markup."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from refig.plugin import Attempt, AttemptStatus, Render
from refig.plugins import Registry
from refig.records import HarnessRecord, PluginKind
from refig.store import RunStore
from refig_toolkit_agent.install import locate
from refig_toolkit_testing.scripted import DEFAULT_SCRIPT, Fault, Finish, ScriptedServer

HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)> & "quoted"'
MODEL, FAILING, CODEX = "claude-sonnet-4-5", "claude-haiku-4-5", "gpt-5.5"
PRICE = {"input_cost_per_token": 2e-6, "output_cost_per_token": 8e-6}


#: Tasks of each family's demo suite, and configurations of each run once the CLIs ran.
TASKS = 2
CONFIGS = {"run": 5, "deck-edit/run": 2, "figure-to-code/run": 3}


@dataclass(frozen=True)
class ViewedRun:
    folder: Path  # refig demo's output: one run per family
    root: Path  # its figure-to-slide run, with the CLIs' attempts
    store: RunStore
    slide_sha: str  # the succeeded Claude Code attempt's slide.pptx
    tasks: int
    samples: int  # of the figure-to-slide run
    hostile: str = HOSTILE
    model: str = MODEL

    @property
    def all_samples(self) -> int:
        return TASKS * sum(CONFIGS.values())


def refig(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = [str(Path(sys.executable).parent / "refig"), *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=900,
                          check=False)


def _harnesses_ready(*names: str) -> None:
    registry = Registry.load(warn=lambda _: None)
    if "sample" not in registry.names(PluginKind.SUITE):
        pytest.skip("the sample suite builder is not installed")
    for name in names:
        record = next((r for r in registry.records(PluginKind.HARNESS) if r.name == name), None)
        if not isinstance(record, HarnessRecord) or record.cli is None:
            pytest.skip(f"the {name} harness plugin is not installed")
        if not locate(name, record.cli).ok:
            pytest.skip(f"the pinned {name} CLI is not installed: refig harness install {name}")


@pytest.fixture(scope="session")
def viewed_run(tmp_path_factory: pytest.TempPathFactory, demo_run: Any) -> ViewedRun:
    _harnesses_ready("claude-code", "codex")
    assert demo_run.tasks == TASKS
    # the one command to open it
    assert f"refig view {demo_run.folder}" in " ".join(demo_run.printed.split())
    folder = tmp_path_factory.mktemp("viewed") / "demo"
    shutil.copytree(demo_run.folder, folder)  # the session's demo is shared: add to a copy
    env = dict(os.environ)
    suite, run = folder / "suite", folder / "run"
    prices = folder / "prices.json"
    prices.write_text(json.dumps({MODEL: PRICE, FAILING: PRICE, CODEX: PRICE}))
    script = (*DEFAULT_SCRIPT[:-1], Finish(f"Done. {HOSTILE}"))
    for harness, model, faults, variable, suffix in (
        ("claude-code", MODEL, (), "ANTHROPIC_BASE_URL", ""),
        ("claude-code", FAILING, (Fault("400"),), "ANTHROPIC_BASE_URL", ""),
        ("codex", CODEX, (), "OPENAI_BASE_URL", "/v1"),
    ):
        with ScriptedServer(script, faults=faults) as server:
            env_run = {**env, variable: server.url + suffix, "REFIG_PRICES": str(prices)}
            done = refig("run", "--suite", str(suite), "--harness", harness, "--model",
                         model, "--workflow", "direct", "--out", str(run), "-q", env=env_run)
        assert done.returncode in (0, 1), done.stdout + done.stderr
    done = refig("evaluate", str(run), "--judge", "metrics", "-q", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    store = RunStore.open(run)
    good = next(a for a in store.query(Attempt) if a.status == AttemptStatus.SUCCEEDED
                and a.config_id.startswith(MODEL))
    render = next(r for r in store.query(Render, artifact_sha256=good.output("slide")))
    assert render.png_sha256 is not None
    return ViewedRun(folder, run, store, good.output("slide") or "", TASKS,
                     TASKS * CONFIGS["run"])


class Browser:
    """Headless Chromium on one viewer: every console error, page error, HTTP status >= 400,
    dialog and request off the server is collected in ``problems``."""

    def __init__(self, url: str):
        self.url = url

    def open(self, pw: Any) -> tuple[Any, Any, list[str]]:
        from refig_toolkit_testing import chromium_launch

        browser = pw.chromium.launch(**(chromium_launch() or {}))
        page = browser.new_page(viewport={"width": 1400, "height": 900}, accept_downloads=True)
        problems: list[str] = []
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.on("response", lambda r: problems.append(f"{r.status} {r.url}")
                if r.status >= 400 else None)
        page.on("dialog", lambda d: (problems.append("dialog " + d.message), d.dismiss()))
        page.on("request", lambda r: None if r.url.startswith((self.url, "data:"))
                else problems.append("external " + r.url))
        return browser, page, problems


def column(page: Any, key: str) -> list[str]:
    """The text of one column of the sample list, top to bottom."""
    index = page.eval_on_selector_all(
        "#samples thead th", f"ths => ths.findIndex(th => th.dataset.key === {key!r})")
    assert index >= 0, f"no column {key}"
    return page.eval_on_selector_all(
        "#samples tbody tr", f"trs => trs.map(tr => tr.children[{index}].textContent)")


def tree_state(root: Path) -> dict[str, str]:
    """Every file below ``root`` with the hash of its bytes, but SQLite's WAL index and an empty
    WAL: a reader of a WAL database (a read-only one too) makes ``-shm``, where it marks what it
    reads, and an empty ``-wal`` when the last writer removed it; neither holds data."""
    def kept(path: Path) -> bool:
        return path.is_file() and not path.name.endswith(".db-shm") and not (
            path.name.endswith(".db-wal") and path.stat().st_size == 0)

    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if kept(p)}


@pytest.fixture(scope="session")
def browsing() -> Any:
    """What the browser tests share: :class:`Browser`, :func:`column`, :func:`tree_state` and
    the sync API (the test skips when Chromium or Playwright is missing)."""
    from types import SimpleNamespace

    from refig_toolkit_testing import chromium_launch

    if chromium_launch() is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    return SimpleNamespace(Browser=Browser, column=column, api=sync_api, tree_state=tree_state)
