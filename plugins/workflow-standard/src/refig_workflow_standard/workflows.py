"""The ``direct``, ``specialized``, ``hybrid`` and ``answer`` workflows.

Each takes its prompt from the task's family (:mod:`.templates`), so one workflow name means the
same kind of help in every family that has a template for it, and for one task the instruction is
identical word for word in every harness. ``specialized`` and ``hybrid`` also copy a toolchain
into the workspace: the scripts of the ``toolchain/`` folder beside the family's ``prompts/``
folder, documented by the guide beside the template (``<workflow>-tools.vN.md``, else
``toolchain.vN.md``) where each harness looks for instructions.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from refig.plugin import Prompt, Task, UsageError, Workflow

from refig_workflow_standard.templates import (
    PromptTable,
    Template,
    context,
    family_prompts,
    find_template,
)

TOOLS_DIR = "tools"
#: Where each harness looks for instructions of its own; anything else gets a plain TOOLS.md.
GUIDE_FILES: dict[str, str] = {"codex": "AGENTS.md", "qwen-code": "QWEN.md",
                               "gemini-cli": "GEMINI.md"}
DEFAULT_GUIDE = "TOOLS.md"


class DirectWorkflow(Workflow):
    """The family's prompt for this workflow, filled in; nothing else in the workspace."""

    name = "direct"

    def __init__(self, prompts: PromptTable = family_prompts):
        self.prompts = prompts

    def template(self, task: Task) -> Template:
        return find_template(self.name, task.family, self.prompts)

    def prepare(self, workspace: Path, task: Task, harness: str) -> Prompt:
        template = self.template(task)
        text = template.render(**context(task, harness))
        return Prompt(text=text, files=(), version=template.version)


class AnswerWorkflow(DirectWorkflow):
    """A prompt asking for one answer that holds the whole program (the ``model`` harness)."""

    name = "answer"


def guide_for(template: Template) -> Path:
    """The toolchain guide beside ``template``: ``<workflow>-tools`` or ``toolchain``, with the
    template's version suffix (``.v1``) when it has one."""
    workflow, dot, version = template.version.partition(".")
    suffix = f"{dot}{version}.md"
    for name in (f"{workflow}-tools", "toolchain"):
        if (path := template.path.with_name(name + suffix)).is_file():
            return path
    raise UsageError(f"no toolchain guide beside {template.path}")


def as_skill(guide: str) -> tuple[str, str]:
    """Claude Code's form of a guide: its skill file and text. The guide's title names the skill
    and its first paragraph is the description (which decides when Claude Code loads it)."""
    title, _, rest = guide.partition("\n")
    name = re.sub(r"[^a-z0-9]+", "-", title.lstrip("# ").lower()).strip("-")
    description = " ".join(rest.strip().split("\n\n", 1)[0].split())
    header = f"---\nname: {name}\ndescription: {description}\n---\n\n"
    return f".claude/skills/{name}/SKILL.md", header + guide


class ToolchainWorkflow(DirectWorkflow):
    """The direct goal plus the family's toolchain, documented where the harness looks for it."""

    name = "specialized"

    def prepare(self, workspace: Path, task: Task, harness: str) -> Prompt:
        template = self.template(task)
        values = context(task, harness)
        text = template.render(**values)
        scripts = template.path.parent.parent / "toolchain"
        tools = workspace / TOOLS_DIR
        tools.mkdir(exist_ok=True)
        files: list[str] = []
        for script in sorted(scripts.glob("*.py")):
            shutil.copyfile(script, tools / script.name)
            files.append(f"{TOOLS_DIR}/{script.name}")
        body = Template(guide_for(template)).render(**values)
        if harness == "claude-code":
            guide, body = as_skill(body)
        else:
            guide = GUIDE_FILES.get(harness, DEFAULT_GUIDE)
        target = workspace / guide
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(body, encoding="utf-8")
        files.append(guide)
        return Prompt(text=text, files=tuple(files), version=template.version)


class HybridWorkflow(ToolchainWorkflow):
    """PPTPilot's loop: route each edit to python-pptx code or a validated OOXML patch, render,
    compare with the instruction, repeat; the number of loops is part of the template's text."""

    name = "hybrid"
