"""``refig run``'s attempts see only a task's visible inputs: a hidden input (a target deck,
reference code, a style target) reaches neither the agent's workspace nor its prompt, for every
workflow of the deck-edit and figure-to-code families. The harness here is a recorder that lists
what the agent would have seen (a real harness would need a model to tell us)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, ClassVar

import pytest
from refig.models import Attempt
from refig.plugin import HarnessRecord, HarnessResult, WorkflowRecord
from refig.plugins import Registry, Selection
from refig.protocols import AttemptContext, Harness
from refig.running.runner import RunRequest, execute
from refig.store import RunStore
from refig.suite import Suite, SuiteWriter
from refig_workflow_standard.workflows import (
    AnswerWorkflow,
    DirectWorkflow,
    HybridWorkflow,
    ToolchainWorkflow,
)

DECK_EDIT = "deck-edit"
FIGURE_TO_CODE = "figure-to-code"

PLUGINS = Path(__file__).resolve().parents[1] / "plugins"
DECK = PLUGINS / "family-deck-edit/src/refig_family_deck_edit/prompts"
CODE = PLUGINS / "family-figure-to-code/src/refig_family_figure_to_code/prompts"
TABLES = {DECK_EDIT: {"direct": DECK / "direct.v1.md", "hybrid": DECK / "hybrid.v1.md"},
          FIGURE_TO_CODE: {"direct": CODE / "direct.v1.md", "answer": CODE / "answer.v1.md"}}
SECRET = "hidden-7f3a9c"


class Recorder(Harness):
    """A harness that records every workspace file (name and bytes) and the prompt."""

    seen: ClassVar[list[dict[str, Any]]] = []
    lock = threading.Lock()

    def run(self, ctx: AttemptContext) -> HarnessResult:
        files = {str(p.relative_to(ctx.workspace)): p.read_bytes().decode("latin-1")
                 for p in sorted(ctx.workspace.rglob("*")) if p.is_file()}
        with self.lock:
            self.seen.append({"prompt": ctx.prompt.text, "files": files})
        return HarnessResult(exit_code=0)


def selection(record: Any) -> Selection:
    return Selection(record=record, distribution="tests")


def suite(root: Path, family: str) -> Path:
    writer = SuiteWriter(root, name=f"hidden-{family}", family=family, builder="tests")
    base = "assets/t1"
    secret = f"{SECRET} the hidden answer".encode()
    if family == DECK_EDIT:
        from pptx import Presentation

        deck = Presentation()
        deck.slides.add_slide(deck.slide_layouts[1]).shapes.title.text = "Results"
        deck.save(root / "deck.pptx")
        inputs = {"deck": writer.asset(f"{base}/deck.pptx", (root / "deck.pptx").read_bytes()),
                  "target": writer.asset(f"{base}/{SECRET}/target.pptx", secret, visible=False),
                  "style_target": writer.asset(f"{base}/{SECRET}.txt", secret, visible=False)}
        writer.add_task("t1", inputs, instruction="Translate the title into French.",
                        meta={"edit_type": SECRET})
    else:
        inputs = {"figure": writer.asset(f"{base}/figure.png", b"\x89PNG\r\n\x1a\n not really"),
                  "data/points.csv": writer.asset(f"{base}/data/points.csv", b"x,y\n1,2\n"),
                  "reference_code": writer.asset(f"{base}/reference/{SECRET}.py", secret,
                                                 visible=False)}
        writer.add_task("t1", inputs, params={"language": "python", "width": 64, "height": 48},
                        meta={"category": SECRET})
    writer.finish()
    return root


@pytest.mark.parametrize(("family", "workflow"), [
    (DECK_EDIT, DirectWorkflow), (DECK_EDIT, HybridWorkflow),
    (FIGURE_TO_CODE, DirectWorkflow), (FIGURE_TO_CODE, AnswerWorkflow)])
def test_no_hidden_input_reaches_the_workspace_or_the_prompt(
        tmp_path: Path, family: str, workflow: type[ToolchainWorkflow]) -> None:
    Recorder.seen.clear()
    harness = HarnessRecord(name="recorder", description="records what the agent sees",
                            factory=lambda **_: Recorder(), families=frozenset({family}),
                            needs_model=False)
    flow = WorkflowRecord(name=workflow.name, description="the standard workflow",
                          factory=lambda **_: workflow(lambda f: TABLES[f]),
                          families=frozenset({family}))
    registry = Registry.load(warn=lambda _: None)
    request = RunRequest(suite=Suite.load(suite(tmp_path / "suite", family)), out=tmp_path / "run",
                         harness=selection(harness), workflow=selection(flow),
                         executor=registry.resolve("executor", "local"),
                         workspace_root=tmp_path / "attempts", sandbox="none",
                         deliverables=registry.family(family).record.deliverables)
    execute(request, quiet=True)
    [attempt] = RunStore.open(tmp_path / "run").query(Attempt)
    assert attempt.prompt_version == f"{workflow.name}.v1"
    [seen] = Recorder.seen
    assert SECRET not in seen["prompt"]
    visible = {DECK_EDIT: "source.pptx", FIGURE_TO_CODE: "source.png"}[family]
    assert visible in seen["files"], sorted(seen["files"])
    for name, content in seen["files"].items():
        assert SECRET not in name and SECRET not in content, name
    if family == FIGURE_TO_CODE:
        assert "data/points.csv" in seen["files"]
