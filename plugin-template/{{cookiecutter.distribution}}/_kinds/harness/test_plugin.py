import time

from pptx import Presentation
from refig.plugin import Asset, AttemptContext, Prompt, Task
from refig.plugins import Registry
from refig.running.workspace import write_inputs

from {{ cookiecutter.module }}.plugin import TitleHarness

#: A real PNG (one white pixel): the bytes a suite's figure would hold.
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c63f8ffffff7f0009fb03fd2a86e38a0000000049454e44ae426082"
)


def _context(tmp_path, seconds=60.0, task_id="fig-7"):
    """The context a real run gives: the task's visible inputs put in the workspace by refig's
    own ``write_inputs``, under the names a real attempt sees (the figure as ``source.png``,
    whatever the suite calls it), and ``source`` pointing at it."""
    task = Task(id=task_id, family="figure-to-slide",
                inputs={"figure": Asset(path=f"assets/{task_id}.png", sha256="0" * 64)})
    workspace = tmp_path / task_id
    workspace.mkdir(parents=True)
    source = write_inputs(workspace, task, {"figure": PNG})
    return AttemptContext(task=task, workspace=workspace, source=source,
                          prompt=Prompt(text="rebuild"), model="none",
                          deadline=time.monotonic() + seconds)


def test_the_context_is_what_a_real_run_gives(tmp_path):
    ctx = _context(tmp_path)
    assert ctx.source.read_bytes() == PNG and ctx.source.parent == ctx.workspace
    assert not (ctx.workspace / "fig-7.png").exists()  # the suite's name never reaches it


def test_writes_and_runs_the_program(tmp_path):
    result = TitleHarness().run(_context(tmp_path))
    assert result.error is None and result.exit_code == 0
    deck = Presentation(str(result.outputs["slide"]))
    assert len(deck.slides) == 1
    texts = [shape.text_frame.text for shape in deck.slides[0].shapes]
    assert texts == ["Figure fig-7"]
    assert result.outputs["program"].read_text().startswith("from pptx import")


def test_two_tasks_give_two_slides(tmp_path):
    """What a real run shows: attempts on different tasks differ (a harness that read a fixed
    file name would pass one test and give every task the same slide)."""
    titles = []
    for task_id in ("fig-7", "fig-8"):
        result = TitleHarness().run(_context(tmp_path / task_id, task_id=task_id))
        titles.append(Presentation(str(result.outputs["slide"])).slides[0].shapes[0].text_frame.text)
    assert titles == ["Figure fig-7", "Figure fig-8"]


def test_a_past_deadline_is_a_retryable_timeout(tmp_path):
    result = TitleHarness().run(_context(tmp_path, seconds=-1))
    assert result.error.kind == "timeout" and result.error.retryable


def test_refig_loads_the_installed_plugin():
    env = {"REFIG_STRICT_PLUGINS": "1", "REFIG_LOAD_PLUGINS": "{{ cookiecutter.distribution }}"}
    chosen = Registry.load(environ=env).resolve("harness", "{{ cookiecutter.name }}")
    assert isinstance(chosen.create(), TitleHarness)


# --- the sandbox: the program sees no key, in its environment or in another process's ---------

KEY_NAME, KEY = "OPENAI_API_KEY", "sk-template-probe-5d41402abc4b2a76"
#: Run instead of the slide program: where can it find the key? (its environment; /proc)
PROBE = "\n".join([
    "import os, pathlib",
    f"key = {KEY!r}",
    "here = [name for name, value in os.environ.items() if key in value]",
    "elsewhere = []",
    "for entry in pathlib.Path('/proc').iterdir():",
    "    try:",
    "        if key.encode() in (entry / 'environ').read_bytes():",
    "            elsewhere.append(entry.name)",
    "    except OSError:",
    "        pass",
    "pathlib.Path('seen.txt').write_text(' '.join(here) + '|' + ' '.join(elsewhere))",
])


def _probe(tmp_path, monkeypatch, sandbox=None):
    """Run the harness with the probe as its program; return (names in its environment holding
    the key, pids whose environment holds it) and the context."""
    import dataclasses
    import os

    from {{ cookiecutter.module }} import plugin

    monkeypatch.setattr(plugin, "PROGRAM", PROBE)
    ctx = dataclasses.replace(_context(tmp_path), env={"PATH": os.environ.get("PATH", "")},
                              sandbox=sandbox)
    TitleHarness().run(ctx)
    here, elsewhere = (ctx.workspace / "seen.txt").read_text().split("|")
    return here.split(), elsewhere.split(), ctx


def test_a_key_in_refigs_environment_does_not_reach_the_program(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_NAME, KEY)
    here, _, ctx = _probe(tmp_path, monkeypatch)
    assert here == []  # the program started from the attempt's clean environment
    assert ctx.processes == ["none"]  # and the attempt records how it was confined


def test_under_bubblewrap_no_other_process_environment_is_readable(tmp_path, monkeypatch):
    import subprocess
    import sys

    import pytest
    from refig.plugin import SandboxPolicy

    policy = SandboxPolicy.create("auto")
    if policy.mode != "bwrap":
        pytest.skip("bubblewrap is not installed or cannot create namespaces here")
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"],
                              env={"PATH": "/usr/bin", KEY_NAME: KEY})  # e.g. refig's gateway
    try:
        (tmp_path / "open").mkdir()
        _, seen_unsandboxed, _ = _probe(tmp_path / "open", monkeypatch)
        assert str(holder.pid) in seen_unsandboxed  # the probe finds it when nothing hides it
        (tmp_path / "boxed").mkdir()
        here, elsewhere, ctx = _probe(tmp_path / "boxed", monkeypatch, sandbox=policy)
        assert here == [] and elsewhere == []
        assert ctx.processes == ["bwrap"]
    finally:
        holder.kill()
        holder.wait()
