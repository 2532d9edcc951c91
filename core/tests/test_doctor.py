"""`refig doctor` reports core and plugin checks, never prints secrets, and exits 1 when
something `refig demo` needs is missing."""

from __future__ import annotations

import json

from refig.cli import run

CHECKING_PLUGIN = """
from refig import hookimpl
from refig.doctor import Check, Status
from refig.records import MetricRecord

def _checks():
    yield Check("frobnicator", Status.{status}, "frobnicator 1.0", "apt-get install frob",
                required=True)

def _raises():
    raise OSError("disk on fire")

@hookimpl
def refig_metrics():
    yield MetricRecord(name="frob", description="needs a frobnicator", factory=dict,
                       checks=_checks)
    yield MetricRecord(name="fragile", description="its check raises", factory=dict,
                       checks=_raises)
"""


def _doctor(capsys) -> tuple[int, dict[str, dict]]:
    code = run(["doctor", "--json"])
    checks = json.loads(capsys.readouterr().out)
    return code, {c["component"]: c for c in checks}


def test_doctor_lists_core_and_plugin_checks(make_dist, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-planted-secret-value")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    make_dist("testplug-frob", CHECKING_PLUGIN.format(status="OK"))
    code, checks = _doctor(capsys)
    assert code == 0
    assert {"python", "refig", "uv", "node", "bubblewrap"} <= checks.keys()
    assert checks["frobnicator"]["status"] == "ok"
    assert checks["metric fragile"]["status"] == "warn"
    assert "disk on fire" in checks["metric fragile"]["detail"]
    assert checks["OPENAI_API_KEY"]["status"] == "ok"
    assert checks["ANTHROPIC_API_KEY"] == {
        "component": "ANTHROPIC_API_KEY", "status": "warn",
        "detail": "not set; needed for the claude-code harness",
        "fix": "export ANTHROPIC_API_KEY=...", "required": False,
    }
    assert run(["doctor"]) == 0
    assert "sk-test-planted-secret-value" not in capsys.readouterr().out


def test_missing_required_component_exits_1_with_the_fix(make_dist, capsys):
    make_dist("testplug-frob", CHECKING_PLUGIN.format(status="MISSING"))
    code, checks = _doctor(capsys)
    assert code == 1
    assert checks["frobnicator"]["fix"] == "apt-get install frob"
    assert run(["doctor"]) == 1
    assert "required component(s) missing" in capsys.readouterr().out


def test_an_unset_qwen_server_is_not_configured_and_a_set_one_is_ok(capsys, monkeypatch):
    monkeypatch.delenv("REFIG_QWEN_API_BASE", raising=False)
    code, checks = _doctor(capsys)
    assert code == 0  # optional: only the qwen judge needs it
    qwen = checks["REFIG_QWEN_API_BASE"]
    assert qwen["status"] == "warn" and qwen["detail"].startswith("not configured")
    assert "REFIG_QWEN_API_BASE=http://" in qwen["fix"]
    monkeypatch.setenv("REFIG_QWEN_API_BASE", "http://127.0.0.1:8000/v1")
    _, checks = _doctor(capsys)
    assert checks["REFIG_QWEN_API_BASE"]["status"] == "ok"
    assert checks["OPENAI_BASE_URL"]["status"] == "ok"  # it has a default


def test_doctor_says_how_program_processes_are_capped(capsys):
    from refig.running.process_cap import resolve

    _, checks = _doctor(capsys)
    cap = checks["process cap"]
    mechanism = resolve()
    assert cap["status"] == ("warn" if mechanism == "none" else "ok")
    assert cap["detail"].startswith(mechanism)
