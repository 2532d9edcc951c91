"""The real Claude Code and Codex CLIs on deck-edit and figure-to-code tasks, driven through
their adapters, the gateway and the sandbox by the scripted model server (no network): the
scripted agent runs a python-pptx program that leaves ``edited.pptx``, or writes and runs
``figure.py``; the attempt's turns and tokens equal the server's own log."""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from pptx import Presentation
from refig.models import Asset, Task
from refig.protocols import AttemptContext
from refig.running.sandbox import SandboxPolicy
from refig.running.workspace import AttemptDirs, attempt_env, default_root
from refig_toolkit_agent.gateway import read_calls
from refig_toolkit_agent.install import locate
from refig_toolkit_testing.scripted import Action, Finish, Run, ScriptedServer, WriteFile
from refig_toolkit_testing.selfcheck import CheckOutcome, draw_source
from refig_workflow_standard.workflows import DirectWorkflow, HybridWorkflow

PLUGINS = Path(__file__).resolve().parents[1] / "plugins"
PROMPTS = {
    "deck-edit": {name: PLUGINS / "family-deck-edit/src/refig_family_deck_edit/prompts"
                  / f"{name}.v1.md" for name in ("direct", "hybrid")},
    "figure-to-code": {"direct": PLUGINS / "family-figure-to-code/src"
                       / "refig_family_figure_to_code/prompts/direct.v1.md"},
}
EDIT_PROGRAM = '''"""Translate every slide title into French (refig's scripted agent)."""
from pptx import Presentation

FRENCH = {"Results": "Résultats", "Outlook": "Perspectives"}
deck = Presentation("source.pptx")
for slide in deck.slides:
    title = slide.shapes.title
    title.text_frame.paragraphs[0].runs[0].text = FRENCH[title.text]
deck.save("edited.pptx")
print("translated", len(deck.slides), "titles")
'''
FIGURE_PROGRAM = '''import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

fig = plt.figure(figsize=(6.4, 2.4), dpi=100)
plt.bar(["Input", "Model", "Output"], [3, 5, 2])
fig.savefig("figure.png")
'''


def harness(name: str):  # type: ignore[no-untyped-def]
    if name == "claude-code":
        from refig_harness_claude_code.adapter import ClaudeCodeHarness

        return ClaudeCodeHarness()
    from refig_harness_codex.adapter import CodexHarness

    return CodexHarness()


def installed(name: str) -> None:
    adapter = harness(name)
    if not locate(name, adapter.pin).ok:
        pytest.skip(f"{name} CLI {adapter.pin.version} is not installed: "
                    f"run `refig harness install {name}`")


def attempt(name: str, task: Task, source: Path, script: Sequence[Action],
            dirs: AttemptDirs, workflow: type[DirectWorkflow] = DirectWorkflow) -> CheckOutcome:
    adapter = harness(name)
    prompt = workflow(lambda family: PROMPTS[family]).prepare(dirs.workspace, task, name)
    with ScriptedServer(script, model=adapter.example_model, workspace=dirs.workspace) as server:
        ctx = AttemptContext(
            task=task, workspace=dirs.workspace, source=source, prompt=prompt,
            model=adapter.example_model, deadline=time.monotonic() + 300,
            env=attempt_env(dirs, dirs.root.name),
            options={"upstream": server.url + adapter.provider.mount}, log=dirs.log,
            attempt_id=dirs.root.name, home=dirs.home, outputs_dir=dirs.outputs,
            sandbox=SandboxPolicy.create("auto", protected=()),
        )
        started = time.monotonic()
        result = adapter.run(ctx)
        served, totals = list(server.served), server.model.totals()
        requests = [r.json() for r in server.requests if r.method == "POST"]
    calls = read_calls(result.outputs["calls"])
    return CheckOutcome(result, served, calls, dirs, time.monotonic() - started, totals,
                        requests)


@pytest.fixture
def dirs() -> Iterator[AttemptDirs]:
    made = AttemptDirs.create(default_root(), f"families-{uuid.uuid4().hex[:12]}")
    yield made
    made.remove()


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def deck_task(dirs: AttemptDirs) -> tuple[Task, Path]:
    deck = Presentation()
    for title in ("Results", "Outlook"):
        deck.slides.add_slide(deck.slide_layouts[1]).shapes.title.text = title
    source = dirs.workspace / "source.pptx"
    deck.save(source)
    return Task(id="deck", family="deck-edit",
                inputs={"deck": Asset(path="source.pptx", sha256=sha(source))},
                instruction="Translate every slide title into French."), source


@pytest.mark.slow
@pytest.mark.parametrize("name", ["claude-code", "codex"])
def test_a_scripted_agent_edits_the_deck_in_place_with_python_pptx(
        name: str, dirs: AttemptDirs) -> None:
    installed(name)
    task, source = deck_task(dirs)
    before = sha(source)
    script = (WriteFile("edit_deck.py", EDIT_PROGRAM), Run("python3 edit_deck.py"),
              Finish("Done: edited.pptx has the titles in French."))
    outcome = attempt(name, task, source, script, dirs)
    result = outcome.result
    assert result.error is None and result.exit_code == 0, result.error
    edited = Presentation(str(dirs.workspace / "edited.pptx"))
    assert [s.shapes.title.text for s in edited.slides] == ["Résultats", "Perspectives"]
    assert sha(source) == before  # edited beside the original, which is left as it was
    assert (dirs.workspace / "edit_deck.py").read_text() == EDIT_PROGRAM
    assert outcome.mismatches() == [] and result.turns == 3
    assert [s.action for s in outcome.served] == ["WriteFile", "Run", "Finish"]
    # The deck is the agent's input, not an image to attach to its first message (Codex would
    # tell the model "image content omitted because it could not be processed").
    assert "<image name=" not in json.dumps(outcome.requests[0])


@pytest.mark.slow
@pytest.mark.parametrize("name", ["claude-code", "codex"])
def test_a_scripted_agent_writes_and_runs_figure_py(name: str, dirs: AttemptDirs) -> None:
    installed(name)
    source = draw_source(dirs.workspace / "source.png")
    task = Task(id="bars", family="figure-to-code",
                inputs={"figure": Asset(path="source.png", sha256=sha(source))},
                params={"language": "python", "width": 640, "height": 240})
    script = (WriteFile("figure.py", FIGURE_PROGRAM), Run("python3 figure.py"),
              Finish("Done: figure.py draws the figure."))
    outcome = attempt(name, task, source, script, dirs)
    result = outcome.result
    assert result.error is None and result.exit_code == 0, result.error
    assert (dirs.workspace / "figure.py").read_text() == FIGURE_PROGRAM
    from PIL import Image

    with Image.open(dirs.workspace / "figure.png") as image:
        assert image.size == (640, 240)
    assert outcome.mismatches() == [] and result.turns == 3


PATCH = """[{"part": "ppt/slides/slide2.xml", "xpath": "//a:t[.='Outlook']", "op": "text",
  "value": "Perspectives"}]
"""


@pytest.mark.slow
def test_a_scripted_hybrid_agent_outlines_the_deck_and_applies_a_patch_in_the_sandbox(
        dirs: AttemptDirs) -> None:
    installed("claude-code")
    task, source = deck_task(dirs)
    script = (Run("python3 tools/outline_deck.py > outline.txt"), WriteFile("patch.json", PATCH),
              Run("python3 tools/apply_patch.py"),
              Run("python3 tools/compare_deck.py > compare.txt 2>&1"),
              Finish("Done: one precise patch."))
    outcome = attempt("claude-code", task, source, script, dirs, HybridWorkflow)
    result = outcome.result
    assert result.error is None and result.exit_code == 0, result.error
    assert "slide 2 [ppt/slides/slide2.xml]" in (dirs.workspace / "outline.txt").read_text()
    edited = Presentation(str(dirs.workspace / "edited.pptx"))
    assert [s.shapes.title.text for s in edited.slides] == ["Results", "Perspectives"]
    assert (dirs.workspace / ".claude/skills/deck-toolchain/SKILL.md").is_file()
    compared = (dirs.workspace / "compare.txt").read_text()
    # LibreOffice rendered both decks inside the sandbox; only slide 2 changed.
    assert "parts changed: ppt/slides/slide2.xml" in compared, compared
    assert (dirs.workspace / "compare" / "slide-2.png").is_file(), compared
    assert outcome.mismatches() == [] and result.turns == 5
