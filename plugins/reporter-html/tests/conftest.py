"""A run to view: real Claude Code attempts (one configuration succeeded, one ended by API
errors) and real Codex attempts against the scripted model server, evaluated with LibreOffice
and the offline judge, plus samples of the deck-edit and figure-to-code families, and a hostile
string in every place the store shows."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from refig.harness.install import locate
from refig.plugin import (
    Asset,
    Attempt,
    AttemptStatus,
    ErrorInfo,
    GateResult,
    Inspection,
    MetricValue,
    Page,
    Render,
    Task,
    Usage,
)
from refig.plugin.analysis import RunStore
from refig.plugins import Registry
from refig.records import HarnessRecord, PluginKind
from refig.testing.scripted import DEFAULT_SCRIPT, Fault, Finish, ScriptedServer

HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)> & "quoted"'
MODEL, FAILING, CODEX = "claude-sonnet-4-5", "claude-haiku-4-5", "gpt-5.5"
PRICE = {"input_cost_per_token": 2e-6, "output_cost_per_token": 8e-6}
PROGRAM = "import matplotlib\nmatplotlib.use('Agg')\nprint('" + HOSTILE.replace("'", "") + "')\n"


@dataclass(frozen=True)
class ViewedRun:
    root: Path
    store: RunStore
    slide_sha: str  # the succeeded Claude Code attempt's slide.pptx
    tasks: int
    samples: int
    hostile: str = HOSTILE
    model: str = MODEL


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


def _other_families(store: RunStore, slide: Path, page: Path) -> int:
    """A deck-edit and a figure-to-code sample, stored the way those families store them."""
    deck = store.objects.put_bytes(slide.read_bytes() + b"\0")  # its own object, still a zip
    png = store.objects.put_file(page)
    program = store.objects.put_bytes(PROGRAM.encode())
    transcript = store.objects.put_bytes(b'{"type":"progress","step":"' +
                                         HOSTILE.replace('"', "'").encode() + b'"}\n')
    records: list = [
        Task(id="deck-000", family="deck-edit", instruction=f"Make the title blue. {HOSTILE}",
             inputs={"deck": Asset(path="decks/deck-000.pptx", sha256=deck),
                     "target": Asset(path="decks/deck-000.target.pptx", sha256=deck,
                                     visible=False)},
             meta={"category": "formatting", "tier": "hard"}),
        Task(id="code-000", family="figure-to-code", params={"language": "python"},
             inputs={"figure": Asset(path="figures/code-000.png", sha256=png)},
             meta={"category": "bar", "tier": "easy"}),
        Attempt(task_id="deck-000", config_id=f"{MODEL}@claude-code/direct",
                status=AttemptStatus.SUCCEEDED, outputs={"slide": deck, "transcript": transcript},
                turns=2, usage=Usage(input_tokens=100, output_tokens=20), cost_usd=0.002,
                wall_seconds=3.0),
        Inspection(artifact_sha256=deck, inspector="deck-test",
                   gate=GateResult(passed=True, slides=1), structure={"slides": []}),
        MetricValue(artifact_sha256=deck, metric="deck-diff", name="edit_recall", value=0.5,
                    reference_sha256="r", detail={"achieved": [f"slide 1 Title 1 fill {HOSTILE}"],
                                                  "missed": ["slide 2 Subtitle 2 size"]}),
        Render(artifact_sha256=deck, renderer="libreoffice", settings="deck",
               pages=(Page(index=0, png_sha256=png, width_px=100, height_px=60),
                      Page(index=1, png_sha256=png, width_px=100, height_px=60))),
        MetricValue(artifact_sha256=deck, metric="gate", name="passed", value=1.0),
        Attempt(task_id="code-000", config_id=f"{MODEL}@claude-code/direct",
                status=AttemptStatus.FAILED, outputs={"program": program},
                error=ErrorInfo(kind="runtime_error", message=f"Traceback: {HOSTILE}"),
                turns=1, wall_seconds=1.0),
    ]
    store.put_many(records)
    return 2


@pytest.fixture(scope="session")
def viewed_run(tmp_path_factory: pytest.TempPathFactory) -> ViewedRun:
    _harnesses_ready("claude-code", "codex")
    root = tmp_path_factory.mktemp("viewed")
    env = dict(os.environ)
    suite = root / "suite"
    done = refig("suite", "build", "sample", "--out", str(suite), "-n", "2", "-q", env=env)
    assert done.returncode == 0, done.stderr
    prices = root / "prices.json"
    prices.write_text(json.dumps({MODEL: PRICE, FAILING: PRICE, CODEX: PRICE}))
    run = root / "run"
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
    done = refig("evaluate", str(run), "--judge", "metrics", "--repeats", "2", "-q", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    store = RunStore.open(run)
    good = next(a for a in store.query(Attempt) if a.status == AttemptStatus.SUCCEEDED
                and a.config_id.startswith(MODEL))
    render = next(r for r in store.query(Render, artifact_sha256=good.slide_sha256))
    assert render.png_sha256 is not None
    extra = _other_families(store, store.objects.path(good.slide_sha256),
                            store.objects.path(render.png_sha256))
    return ViewedRun(run, store, good.slide_sha256 or "", 2 + extra, 6 + extra)
