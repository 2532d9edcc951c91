from refig.plugin import Asset, Task
from refig.plugins import Registry

from {{ cookiecutter.module }}.plugin import ChecklistWorkflow


def test_prepares_the_workspace_and_prompt(tmp_path):
    figure = Asset(path="assets/fig-1.png", sha256="0" * 64)
    task = Task(id="fig-1", family="figure-to-slide", inputs={"figure": figure})
    prompt = ChecklistWorkflow().prepare(tmp_path, task, harness="claude-code")
    assert "fig-1.png" in prompt.text and "CHECKLIST.md" in prompt.text
    assert prompt.files == ("CHECKLIST.md",)
    assert "connector" in (tmp_path / "CHECKLIST.md").read_text()


def test_refig_loads_the_installed_plugin():
    env = {"REFIG_STRICT_PLUGINS": "1", "REFIG_LOAD_PLUGINS": "{{ cookiecutter.distribution }}"}
    chosen = Registry.load(environ=env).resolve("workflow", "{{ cookiecutter.name }}")
    assert isinstance(chosen.create(), ChecklistWorkflow)
