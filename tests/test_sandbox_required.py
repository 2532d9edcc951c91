"""No agent runs unsandboxed by accident: ``refig run --sandbox auto`` on a machine without a
working bubblewrap refuses a harness that runs an agent (exit 2, naming the apt command and the
``--sandbox none`` opt-out), still runs a model-free baseline, and every attempt records how each
process it started was confined.

"Without bubblewrap" is made honestly, for the ``refig`` process only: its ``PATH`` holds no
``bwrap`` (missing), or holds a ``bwrap`` that fails as one does in a container without user
namespaces (forbidden). refig finds bubblewrap through ``PATH`` and probes it, as on any machine.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from refig.models import Attempt, AttemptStatus
from refig.running.sandbox import bwrap_works
from refig.store import RunStore

from .conftest import install_plugin
from .conftest import refig_cli as refig

#: A harness that runs a process through the sandbox helper, as an agent's CLI does.
AGENT_HOOKS = '''
import sys

from refig.plugin import Harness, HarnessRecord, HarnessResult, hookimpl
from refig.plugin import run_command


class Agent(Harness):
    def run(self, ctx):
        done = run_command(ctx, [sys.executable, "-c", "print('an agent')"], network=False)
        return HarnessResult(exit_code=done.exit_code)


@hookimpl
def refig_harnesses():
    yield HarnessRecord(name="probe-agent", description="runs one process, as an agent does",
                        factory=lambda **_: Agent(), families=frozenset({"figure-to-slide"}),
                        needs_model=False)
'''


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("suite") / "sample"
    done = refig("suite", "build", "sample", "--out", str(out), "-n", "1", "-q",
                 env=dict(os.environ))
    if done.returncode != 0 and "unknown suite" in done.stderr:
        pytest.skip("the sample suite builder (refig-suite-sample) is not installed")
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """refig's environment, with the probe agent harness installed (found through PYTHONPATH)."""
    site = tmp_path / "site"
    install_plugin(site, monkeypatch, "refig_harness_probe_agent", "refig-harness-probe-agent",
                   AGENT_HOOKS)
    environ = {k: v for k, v in os.environ.items() if k != "REFIG_LOAD_PLUGINS"}
    return {**environ, "PYTHONPATH": str(site), "REFIG_WORKSPACE_ROOT": str(tmp_path / "ws")}


def _without_bwrap(env: dict[str, str], tmp_path: Path, how: str) -> dict[str, str]:
    tools = tmp_path / "bin"
    tools.mkdir()
    if how == "forbidden":  # what bwrap says in a container that forbids user namespaces
        fake = tools / "bwrap"
        fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\n"
                        "exit 1\n")
        fake.chmod(0o755)
    # a machine with nothing on PATH has no prlimit either: REFIG_PROCESS_CAP=uid (a CI-like
    # run on a machine with a pids cgroup) would name a cap this stand-in cannot hold
    return {**{k: v for k, v in env.items() if k != "REFIG_PROCESS_CAP"}, "PATH": str(tools)}


@pytest.mark.parametrize("how", ["missing", "forbidden"])
def test_an_agent_is_refused_without_bubblewrap_unless_asked_for(
        suite: Path, env: dict[str, str], tmp_path: Path, how: str) -> None:
    bare = _without_bwrap(env, tmp_path, how)
    run_dir = tmp_path / "run"
    argv = ["run", "--suite", str(suite), "--harness", "probe-agent", "--out", str(run_dir), "-q"]
    refused = refig(*argv, env=bare)
    said = " ".join(refused.stderr.split())
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "apt-get install bubblewrap" in said and "--sandbox none" in said
    assert not run_dir.exists()  # refused before any work

    chosen = refig(*argv, "--sandbox", "none", env=bare)  # the explicit opt-out
    assert chosen.returncode == 0, chosen.stdout + chosen.stderr
    attempts = RunStore.open(run_dir).query(Attempt)
    assert [(a.sandbox, a.processes) for a in attempts] == [("none", ["none"])]


def test_a_model_free_baseline_still_runs_without_bubblewrap(
        suite: Path, env: dict[str, str], tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    done = refig("run", "--suite", str(suite), "--harness", "raster-paste", "--out",
                 str(run_dir), "-q", env=_without_bwrap(env, tmp_path, "missing"))
    assert done.returncode == 0, done.stdout + done.stderr
    attempts = RunStore.open(run_dir).query(Attempt)
    assert [(a.status, a.sandbox, a.processes) for a in attempts] == [
        (AttemptStatus.SUCCEEDED, "none", ["none"])]


@pytest.mark.skipif(not bwrap_works(), reason="bubblewrap cannot create namespaces here")
def test_with_bubblewrap_each_process_is_recorded_confined(
        suite: Path, env: dict[str, str], tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    done = refig("run", "--suite", str(suite), "--harness", "probe-agent", "--out",
                 str(run_dir), "-q", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    attempts = RunStore.open(run_dir).query(Attempt)
    assert [(a.sandbox, a.processes) for a in attempts] == [("bwrap", ["bwrap"])]
