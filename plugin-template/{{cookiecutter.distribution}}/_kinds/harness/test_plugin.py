import time

from pptx import Presentation
from refig.plugin import Asset, AttemptContext, Prompt, Registry, Task

from {{ cookiecutter.module }}.plugin import TitleHarness


def _context(tmp_path, seconds=60.0):
    figure = Asset(path="assets/fig-7.png", sha256="0" * 64)
    task = Task(id="fig-7", family="figure-to-slide", inputs={"figure": figure})
    return AttemptContext(task=task, workspace=tmp_path, source=tmp_path / "fig-7.png",
                          prompt=Prompt(text="rebuild"), model="none",
                          deadline=time.monotonic() + seconds)


def test_writes_and_runs_the_program(tmp_path):
    result = TitleHarness().run(_context(tmp_path))
    assert result.error is None and result.exit_code == 0
    deck = Presentation(str(result.slide))
    assert len(deck.slides) == 1
    texts = [shape.text_frame.text for shape in deck.slides[0].shapes]
    assert texts == ["Figure fig-7"]
    assert result.program.read_text().startswith("from pptx import")


def test_a_past_deadline_is_a_retryable_timeout(tmp_path):
    result = TitleHarness().run(_context(tmp_path, seconds=-1))
    assert result.error.kind == "timeout" and result.error.retryable


def test_refig_loads_the_installed_plugin():
    env = {"REFIG_STRICT_PLUGINS": "1", "REFIG_LOAD_PLUGINS": "{{ cookiecutter.distribution }}"}
    chosen = Registry.load(environ=env).resolve("harness", "{{ cookiecutter.name }}")
    assert isinstance(chosen.create(), TitleHarness)
