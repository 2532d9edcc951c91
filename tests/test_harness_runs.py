"""``refig run`` end to end with each real harness CLI against the scripted model server.

The provider is reached the standard way (``ANTHROPIC_BASE_URL``/``OPENAI_BASE_URL`` on the refig
process), prices come from an override file (``REFIG_PRICES``), and the stored attempts must
match the server's own log exactly: turns, tokens and cost.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from refig.cli import run
from refig.models import Attempt, AttemptStatus, Output
from refig.plugins import Registry
from refig.records import HarnessRecord, PluginKind
from refig.store import RunStore
from refig_toolkit_agent.gateway import read_calls
from refig_toolkit_agent.install import locate
from refig_toolkit_pptx.gate import inspect_structure
from refig_toolkit_testing.scripted import ScriptedServer
from refig_toolkit_testing.selfcheck import served_cost

from .conftest import refig_cli as refig

HARNESSES = {  # name -> (model, base URL variable, URL suffix)
    "claude-code": ("claude-sonnet-4-5", "ANTHROPIC_BASE_URL", ""),
    "codex": ("gpt-5.5", "OPENAI_BASE_URL", "/v1"),
    "qwen-code": ("qwen3-coder-plus", "OPENAI_BASE_URL", "/v1"),
}
PRICE = {"input_cost_per_token": 2e-6, "output_cost_per_token": 8e-6,
         "cache_read_input_token_cost": 2e-7, "cache_creation_input_token_cost": 2.5e-6}


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    registry = Registry.load(warn=lambda _: None)
    if "sample" not in registry.names(PluginKind.SUITE):
        pytest.skip("the sample suite builder (refig-suite-sample) is not installed")
    out = tmp_path_factory.mktemp("suite") / "sample"
    done = refig("suite", "build", "sample", "--out", str(out), "-n", "2", "-q",
                 env=dict(os.environ))
    assert done.returncode == 0, done.stderr
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name", list(HARNESSES))
def test_refig_run_records_what_the_scripted_server_served(
        name: str, suite: Path, tmp_path: Path) -> None:
    record = next((r for r in Registry.load(warn=lambda _: None).records(PluginKind.HARNESS)
                   if r.name == name), None)
    if not isinstance(record, HarnessRecord) or record.cli is None:
        pytest.skip(f"the {name} harness plugin is not installed")
    if not locate(name, record.cli).ok:
        pytest.skip(f"{name} CLI {record.cli.version} is not installed: "
                    f"run `refig harness install {name}`")
    model, variable, suffix = HARNESSES[name]
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({model: PRICE}))
    run_dir = tmp_path / "run"
    with ScriptedServer() as server:
        env = {**os.environ, variable: server.url + suffix, "REFIG_PRICES": str(prices)}
        done = refig("run", "--suite", str(suite), "--harness", name, "--model", model,
                     "--workflow", "direct", "--out", str(run_dir), "-q", "--json", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    store = RunStore.open(run_dir)
    attempts = store.query(Attempt)
    assert len(attempts) == 2
    # how the figure reached the agent is part of the configuration, the same for every harness
    assert {a.config_id for a in attempts} == {f"{model}@{name}/direct[figure=inline]"}
    assert all(a.status is AttemptStatus.SUCCEEDED and a.cli_version == record.cli.version
               for a in attempts)
    for attempt in attempts:
        gate = inspect_structure(store.objects.path(attempt.outputs["slide"])).gate
        assert gate.passed and gate.slides == 1
        calls = read_calls(store.objects.path(attempt.outputs[Output.CALLS]))
        assert len(calls) == attempt.turns == 3
    served = server.served
    assert sum(a.turns or 0 for a in attempts) == sum(s.completed for s in served) == 6
    for field in ("input_tokens", "output_tokens", "cached_tokens", "reasoning_tokens"):
        assert sum(getattr(a.usage, field) for a in attempts) == sum(
            getattr(s, field) for s in served), field
    assert sum(a.cost_usd or 0 for a in attempts) == pytest.approx(served_cost(
        served, input=2e-6, output=8e-6, cache_read=2e-7, cache_write=2.5e-6))


def _installed(name: str) -> None:
    if name not in Registry.load(warn=lambda _: None).names(PluginKind.HARNESS):
        pytest.skip(f"the {name} harness plugin is not installed")


@pytest.mark.parametrize("name", list(HARNESSES))
@pytest.mark.parametrize(("option", "complaint"), [
    ("efort=high", "has no option 'efort'"),
    ("effort=huge", "unknown {name} effort 'huge'"),
    ("max_retries=many", "max_retries must be a whole number"),
])
def test_a_bad_harness_option_exits_2_before_any_work(
        name: str, option: str, complaint: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    _installed(name)
    code = run(["run", "--suite", str(tmp_path / "suite"), "--harness", name, "--model", "m",
                "--out", str(tmp_path / "run"), "--harness-opt", option])
    assert code == 2
    assert complaint.format(name=name) in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("name", list(HARNESSES))
@pytest.mark.parametrize(("given", "recorded"), [({}, "inline"), ({"figure": "file"}, "file")])
def test_the_figure_delivery_is_recorded_in_the_configuration(
        name: str, given: dict[str, str], recorded: str, suite: Path, tmp_path: Path) -> None:
    from refig.models import Configuration
    from refig.running.runner import make_request

    _installed(name)
    request = make_request(Registry.load(warn=lambda _: None), suite=suite, out=tmp_path / "r",
                           harness=name, model="m", options=given)
    config = Configuration(model="m", harness=name, workflow="direct", options=request.options)
    assert config.id == f"m@{name}/direct[figure={recorded}]"


def test_a_baseline_takes_no_figure_delivery(suite: Path, tmp_path: Path) -> None:
    from refig.running.runner import make_request

    _installed("cv")
    request = make_request(Registry.load(warn=lambda _: None), suite=suite, out=tmp_path / "r",
                           harness="cv")
    assert request.options == {}


@pytest.mark.parametrize("name", list(HARNESSES))
def test_a_real_harness_without_its_key_refuses_before_the_first_attempt(
        name: str, suite: Path, tmp_path: Path) -> None:
    _installed(name)
    _, variable, _ = HARNESSES[name]
    key = "ANTHROPIC_API_KEY" if variable.startswith("ANTHROPIC") else "OPENAI_API_KEY"
    env = {k: v for k, v in os.environ.items() if k not in {key, variable}}
    done = refig("run", "--suite", str(suite), "--harness", name, "--model", "m", "--out",
                 str(tmp_path / "run"), "-q", env=env)
    said = " ".join(done.stderr.split())
    assert done.returncode == 2, said
    record = next(r for r in Registry.load(warn=lambda _: None).records(PluginKind.HARNESS)
                  if r.name == name)
    assert isinstance(record, HarnessRecord) and record.cli is not None
    if locate(name, record.cli).ok:
        assert f"harness {name} needs {key}" in said and f"fix: export {key}=..." in said
    else:  # no CLI here: that is what it refuses first, with the command that installs it
        assert f"harness {name} needs {record.cli.package}" in said and "harness install" in said
    assert not (tmp_path / "run").exists()  # no attempt, not even a run directory


def test_a_harness_pointed_at_another_server_needs_no_key(
        suite: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A local server (the scripted ones of these tests, a proxy) may need no key: no refusal."""
    from refig.running.runner import make_request

    _installed("codex")
    request = make_request(Registry.load(warn=lambda _: None), suite=suite, out=tmp_path / "r",
                           harness="codex", model="m", options={"upstream": "http://127.0.0.1:9"})
    record = request.harness.record
    assert isinstance(record, HarnessRecord) and record.cli is not None
    if not locate("codex", record.cli).ok:
        pytest.skip("the codex CLI is not installed")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    request.harness.create(**request.options).preflight("m")  # returns: another server
