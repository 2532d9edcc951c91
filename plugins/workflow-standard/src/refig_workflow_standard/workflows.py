"""The ``direct`` and ``specialized`` workflows.

Prompts are versioned files in ``prompts/`` (``direct.v1.md``...); the version is recorded with
each attempt as ``direct.v1``, the text's sha256 as the prompt hash. ``{source}`` in a prompt is
replaced by the source's file name in the workspace (``source.png``, ``source.jpg``), so for one
task the instruction is identical word for word in every harness.
"""

from __future__ import annotations

import shutil
from importlib import resources
from pathlib import Path

from refig.plugin import Prompt, Task
from refig.plugin.harness import source_name

PROMPT_VERSION = 1
TOOLS_DIR = "tools"
TOOL_SCRIPTS = ("render_slide.py", "inspect_slide.py", "compare_slide.py")

_SKILL = ".claude/skills/pptx-toolchain/SKILL.md"
_SKILL_HEADER = (
    "---\n"
    "name: pptx-toolchain\n"
    "description: Render, inspect and compare the slide.pptx being built against the source "
    "figure. Use it after every build of slide.pptx, before finishing.\n"
    "---\n\n"
)
#: Where each harness looks for instructions of its own; anything else gets a plain TOOLS.md.
GUIDE_FILES: dict[str, tuple[str, str]] = {
    "claude-code": (_SKILL, _SKILL_HEADER),
    "codex": ("AGENTS.md", ""),
    "qwen-code": ("QWEN.md", ""),
    "gemini-cli": ("GEMINI.md", ""),
}
DEFAULT_GUIDE = ("TOOLS.md", "")


def template(name: str, version: int = PROMPT_VERSION) -> str:
    """The text of ``prompts/<name>.v<version>.md``."""
    path = resources.files(__package__).joinpath("prompts", f"{name}.v{version}.md")
    return path.read_text(encoding="utf-8")


class DirectWorkflow:
    """One instruction, identical in every harness; nothing else in the workspace."""

    name = "direct"

    def __init__(self, version: int | str = PROMPT_VERSION):
        self.version = int(version)
        template(self.name, self.version)  # fail at selection, not mid-run, on a missing file

    def prepare(self, workspace: Path, task: Task, harness: str) -> Prompt:
        text = template(self.name, self.version).replace("{source}", source_name(task))
        return Prompt(text=text, files=(), version=f"{self.name}.v{self.version}")


class SpecializedWorkflow(DirectWorkflow):
    """The direct goal plus a PPTX toolchain, documented where the harness looks for it."""

    name = "specialized"

    def prepare(self, workspace: Path, task: Task, harness: str) -> Prompt:
        prompt = super().prepare(workspace, task, harness)
        tools = workspace / TOOLS_DIR
        tools.mkdir(exist_ok=True)
        package = resources.files(__package__).joinpath("toolchain")
        files: list[str] = []
        for script in TOOL_SCRIPTS:
            with resources.as_file(package.joinpath(script)) as path:
                shutil.copyfile(path, tools / script)
            files.append(f"{TOOLS_DIR}/{script}")
        guide, header = GUIDE_FILES.get(harness, DEFAULT_GUIDE)
        body = template("toolchain", self.version).replace("{source}", source_name(task))
        target = workspace / guide
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(header + body, encoding="utf-8")
        files.append(guide)
        return Prompt(text=prompt.text, files=tuple(files), version=prompt.version)
