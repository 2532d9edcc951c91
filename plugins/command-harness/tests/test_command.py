"""``refig harness install|list|check`` as a user types them; the harnesses they name are the
installed harness plugins (a test skips when the one it needs is not installed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from refig.cli import run
from refig.plugins import Registry
from refig.records import HarnessRecord, PluginKind
from refig_toolkit_agent.install import locate

#: The harnesses of this repository that drive a pinned CLI.
CLI_HARNESSES = {"claude-code", "codex", "qwen-code"}


def refig(*args: str) -> subprocess.CompletedProcess[str]:
    """``refig ARGS`` as a user runs it: this environment's entry point, in a new process."""
    command = [str(Path(sys.executable).parent / "refig"), *args]
    return subprocess.run(command, capture_output=True, text=True, env=dict(os.environ),
                          timeout=900, check=False)


def _installed(name: str) -> HarnessRecord:
    record = next((r for r in Registry.load(warn=lambda _: None).records(PluginKind.HARNESS)
                   if r.name == name), None)
    if not isinstance(record, HarnessRecord) or record.cli is None:
        pytest.skip(f"the {name} harness plugin is not installed")
    return record


def test_harness_list_reports_every_pinned_cli() -> None:
    installed = set(Registry.load(warn=lambda _: None).names(PluginKind.HARNESS))
    done = refig("harness", "list", "--json")
    assert done.returncode == 0, done.stderr
    rows = {row["harness"]: row for row in json.loads(done.stdout)}
    assert CLI_HARNESSES & installed <= set(rows)
    for row in rows.values():
        assert row["pinned"] and row["source"] in {"refig", "path", "missing"}
        assert row["ok"] or row["fix"].startswith("refig harness install")


def test_a_mistyped_harness_cli_gets_the_near_match(capsys: pytest.CaptureFixture[str]) -> None:
    _installed("claude-code")
    assert run(["harness", "install", "claude-cod"]) == 2
    assert "(did you mean 'claude-code'?)" in capsys.readouterr().err


def test_a_name_far_from_every_name_gets_no_guess(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["harness", "install", "zzzzzz"]) == 2
    assert "did you mean" not in capsys.readouterr().err


def test_harness_check_refuses_an_unknown_fault(capsys: pytest.CaptureFixture[str]) -> None:
    _installed("codex")
    assert run(["harness", "check", "codex", "--fault", "418"]) == 2
    assert "unknown fault '418'" in capsys.readouterr().err


@pytest.mark.slow
def test_harness_check_runs_the_cli_offline_and_fails_loudly_on_a_fault() -> None:
    record = _installed("codex")
    if record.cli is None or not locate("codex", record.cli).ok:
        pytest.skip("the codex CLI is not installed")
    done = refig("harness", "check", "codex", "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["match"] and summary["slide_gate"]["passed"] and summary["error"] is None
    failed = refig("harness", "check", "codex", "--fault", "500", "--json")
    assert failed.returncode == 0, failed.stderr  # the fault was expected, and typed
    assert json.loads(failed.stdout)["error"]["kind"] == "api_error"
