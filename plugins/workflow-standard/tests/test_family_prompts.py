"""The workflows take their prompt from the task's family: one workflow name, a template per
family; a family without one is a usage error naming what it supports; hidden inputs never
reach the prompt or the workspace."""

from __future__ import annotations

from pathlib import Path

import pytest
from refig.errors import UsageError
from refig.models import Asset, Task
from refig_workflow_standard.workflows import (
    AnswerWorkflow,
    DirectWorkflow,
    HybridWorkflow,
)

PLUGINS = Path(__file__).resolve().parents[2]
DECK = PLUGINS / "family-deck-edit/src/refig_family_deck_edit/prompts"
CODE = PLUGINS / "family-figure-to-code/src/refig_family_figure_to_code/prompts"
#: The templates the deck-edit and figure-to-code families declare (their records point here).
TABLES = {
    "deck-edit": {"direct": DECK / "direct.v1.md", "hybrid": DECK / "hybrid.v1.md"},
    "figure-to-code": {"direct": CODE / "direct.v1.md", "answer": CODE / "answer.v1.md"},
    "figure-to-slide": {},
}
SECRET = "hidden-target-7f3a"
SHA = "0" * 64


def prompts(family: str) -> dict[str, Path]:
    return TABLES[family]


def hidden(name: str) -> Asset:
    return Asset(path=f"assets/t/{SECRET}/{name}", sha256=SHA, visible=False)


def deck_task() -> Task:
    return Task(id="d1", family="deck-edit",
                inputs={"deck": Asset(path="decks/q3.pptx", sha256=SHA),
                        "target": hidden("target.pptx"), "style_target": hidden("style.txt")},
                instruction="Translate every title into French.",
                meta={"edit_type": SECRET, "categories": [SECRET]})


def code_task(language: str, **params: object) -> Task:
    return Task(id="c1", family="figure-to-code",
                inputs={"figure": Asset(path="figures/bar.png", sha256=SHA),
                        "reference_code": hidden("figure.py")},
                params={"language": language, "width": 640, "height": 480, **params},
                meta={"category": SECRET})


def test_direct_picks_each_family_s_template(tmp_path: Path) -> None:
    deck = DirectWorkflow(prompts).prepare(tmp_path, deck_task(), "codex")
    assert deck.version == "direct.v1" and deck.files == ()
    assert "`source.pptx`" in deck.text and "`edited.pptx`" in deck.text
    assert "Translate every title into French." in deck.text and "python-pptx" in deck.text
    code = DirectWorkflow(prompts).prepare(tmp_path, code_task("r"), "codex")
    assert code.version == "direct.v1"
    assert "`figure.R`" in code.text and 'png("figure.png", width = 640, height = 480)' in code.text
    assert "Do not install packages" in code.text and "{{" not in code.text + deck.text


@pytest.mark.parametrize(("language", "program"), [
    ("python", "figure.py"), ("matlab", "figure.m"), ("r", "figure.R"), ("latex", "figure.tex")])
def test_code_prompts_name_the_language_s_program_and_the_auxiliary_information(
        tmp_path: Path, language: str, program: str) -> None:
    task = code_task(language, seed=42, packages=["numpy", "matplotlib"],
                     auxiliary_info="Legend in the upper left.")
    direct = DirectWorkflow(prompts).prepare(tmp_path, task, "claude-code")
    answer = AnswerWorkflow(prompts).prepare(tmp_path, task, "model")
    assert f"`{program}`" in direct.text and answer.version == "answer.v1"
    assert answer.text.rstrip().endswith("Return only the code.")
    assert "expert" in answer.text and "640 x 480 pixels" in answer.text
    for text in (direct.text, answer.text):
        assert "Legend in the upper left." in text and "numpy, matplotlib" in text
        assert "seed the generator with 42" in text and "\n\n\n" not in text


def test_data_files_are_named_as_the_program_opens_them(tmp_path: Path) -> None:
    task = code_task("python")
    task = task.model_copy(update={"inputs": {
        **task.inputs, "data/points.csv": Asset(path="assets/c1/data/points.csv", sha256=SHA)}})
    for workflow in (DirectWorkflow, AnswerWorkflow):
        text = workflow(prompts).prepare(tmp_path, task, "codex").text
        assert "`points.csv`" in text and SECRET not in text


def test_a_family_table_keyed_by_versioned_names_gives_the_latest_version(
        tmp_path: Path) -> None:
    older = tmp_path / "direct.v1.md"
    older.write_text("old {{ source }}")
    newer = tmp_path / "direct.v2.md"
    newer.write_text("new {{ source }}")
    table = {"direct.v1": older, "direct.v2": newer, "answer.v1": CODE / "answer.v1.md"}
    workspace = tmp_path / "w"
    workspace.mkdir()
    prompt = DirectWorkflow(lambda _: table).prepare(workspace, code_task("python"), "codex")
    assert (prompt.text, prompt.version) == ("new source.png", "direct.v2")
    with pytest.raises(UsageError) as raised:
        HybridWorkflow(lambda _: table).prepare(workspace, code_task("python"), "codex")
    assert "answer, direct" in (raised.value.fix or "")


def test_the_prompt_is_identical_in_every_harness(tmp_path: Path) -> None:
    texts = {DirectWorkflow(prompts).prepare(tmp_path, deck_task(), h).text
             for h in ("claude-code", "codex", "qwen-code")}
    assert len(texts) == 1


def test_a_family_without_the_workflow_s_template_is_a_usage_error_naming_its_workflows(
        tmp_path: Path) -> None:
    with pytest.raises(UsageError) as raised:
        HybridWorkflow(prompts).prepare(tmp_path, code_task("python"), "codex")
    assert "hybrid" in str(raised.value) and "answer, direct" in (raised.value.fix or "")
    with pytest.raises(UsageError):
        AnswerWorkflow(prompts).prepare(tmp_path, deck_task(), "codex")


@pytest.mark.parametrize(("harness", "guide"), [
    ("claude-code", ".claude/skills/deck-toolchain/SKILL.md"), ("codex", "AGENTS.md"),
    ("qwen-code", "QWEN.md"), ("cv", "TOOLS.md")])
def test_hybrid_places_the_deck_toolchain_and_its_guide(
        tmp_path: Path, harness: str, guide: str) -> None:
    prompt = HybridWorkflow(prompts).prepare(tmp_path, deck_task(), harness)
    assert prompt.version == "hybrid.v1" and guide in prompt.files
    for tool in ("outline_deck.py", "apply_patch.py", "render_deck.py", "compare_deck.py"):
        assert (tmp_path / "tools" / tool).is_file() and f"tools/{tool}" in prompt.files
    text = (tmp_path / guide).read_text()
    assert "python tools/apply_patch.py" in text and "`source.pptx`" in text
    if harness == "claude-code":
        assert text.startswith("---\nname: deck-toolchain\ndescription: Tools for editing")
    assert "at most 3" in prompt.text and "tools/compare_deck.py" in prompt.text


@pytest.mark.parametrize(("workflow", "task"), [
    (DirectWorkflow, deck_task()), (HybridWorkflow, deck_task()),
    (DirectWorkflow, code_task("python")), (AnswerWorkflow, code_task("latex"))])
def test_no_hidden_input_reaches_the_prompt_or_the_workspace(
        tmp_path: Path, workflow: type[DirectWorkflow], task: Task) -> None:
    prompt = workflow(prompts).prepare(tmp_path, task, "claude-code")
    assert SECRET not in prompt.text
    for path in tmp_path.rglob("*"):
        assert SECRET not in path.name
        if path.is_file():
            assert SECRET not in path.read_text(errors="replace"), path
