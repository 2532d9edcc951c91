"""The ``direct`` and ``specialized`` workflows as installed plugins."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from refig.models import Asset, Task
from refig.plugins import Registry
from refig.records import PluginKind

SHA = "0" * 64


def task(source: str = "assets/fig.jpg") -> Task:
    return Task(id="fig", family="figure-to-slide",
        inputs={"figure": Asset(path=source, sha256=SHA)})


def workflow(name: str) -> Any:
    return Registry.load(warn=lambda _: None).resolve(PluginKind.WORKFLOW, name).create()


def test_direct_prompt_is_identical_in_every_harness(tmp_path: Path) -> None:
    prompts = []
    for harness in ("claude-code", "codex", "qwen-code", "cv"):
        workspace = tmp_path / harness
        workspace.mkdir()
        prompt = workflow("direct").prepare(workspace, task(), harness)
        prompts.append(prompt)
        assert list(workspace.iterdir()) == [] and prompt.files == ()
    assert len({p.text for p in prompts}) == 1
    text = prompts[0].text
    assert prompts[0].version == "direct.v1"
    assert "`source.jpg`" in text and "python-pptx" in text and "`slide.pptx`" in text
    assert "`build_slide.py`" in text and "{source}" not in text


@pytest.mark.parametrize(("harness", "guide"), [
    ("claude-code", ".claude/skills/pptx-toolchain/SKILL.md"),
    ("codex", "AGENTS.md"), ("qwen-code", "QWEN.md"), ("cv", "TOOLS.md")])
def test_specialized_delivers_the_toolchain_in_each_harness_form(
        tmp_path: Path, harness: str, guide: str) -> None:
    prompt = workflow("specialized").prepare(tmp_path, task("assets/fig.png"), harness)
    assert prompt.version == "specialized.v1"
    assert guide in prompt.files
    text = (tmp_path / guide).read_text()
    assert "tools/compare_slide.py" in text and "`source.png`" in text
    if harness == "claude-code":
        assert text.startswith("---\nname: pptx-toolchain\ndescription: ")
    for script in ("render_slide.py", "inspect_slide.py", "compare_slide.py"):
        assert (tmp_path / "tools" / script).is_file()
    direct = workflow("direct").prepare(tmp_path / "x", task("assets/fig.png"), harness)
    assert prompt.text.startswith(direct.text.split("\n\nWhen you are done")[0])


def test_toolchain_renders_and_compares_when_the_renderer_is_installed(tmp_path: Path) -> None:
    registry = Registry.load(warn=lambda _: None)
    if "libreoffice" not in registry.names(PluginKind.RENDERER) or not shutil.which("soffice"):
        pytest.skip("the LibreOffice renderer plugin or soffice is not installed")
    workflow("specialized").prepare(tmp_path, task("assets/fig.png"), "codex")
    from PIL import Image

    Image.new("RGB", (400, 200), "white").save(tmp_path / "source.png")
    program = (
        "from pptx import Presentation\n"
        "from pptx.util import Inches\n"
        "prs = Presentation()\n"
        "slide = prs.slides.add_slide(prs.slide_layouts[6])\n"
        "slide.shapes.add_textbox(Inches(1), Inches(1), Inches(3), Inches(1)).text = 'Hello'\n"
        "prs.save('slide.pptx')\n"
    )
    (tmp_path / "build_slide.py").write_text(program)
    subprocess.run([sys.executable, "build_slide.py"], cwd=tmp_path, check=True)
    done = subprocess.run([sys.executable, "tools/render_slide.py"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "render.png").is_file()
    done = subprocess.run([sys.executable, "tools/compare_slide.py"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert (tmp_path / "compare.png").is_file(), done.stderr


def test_prompt_texts_appear_verbatim_in_the_docs() -> None:
    from importlib import resources

    docs = Path(__file__).resolve().parents[3] / "docs" / "running.md"
    if not docs.is_file():
        pytest.skip("docs/running.md is not beside this checkout")
    text = docs.read_text()
    prompts = resources.files("refig_workflow_standard").joinpath("prompts")
    for entry in prompts.iterdir():
        assert entry.read_text().strip() in text, f"{entry.name} differs from docs/running.md"
