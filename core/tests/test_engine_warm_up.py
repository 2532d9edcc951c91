"""The engine lets a renderer start its processes before the render stage (so LibreOffice's
start-up overlaps inspection), as many as the stage will use, and only when the stages run in
this process; and making one plugin does not hold up another one's callers."""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TypeVar

import pytest
from pptx import Presentation
from refig.builtins.executors import LocalExecutor
from refig.engine import plugins
from refig.engine.engine import Engine
from refig.engine.files import FileSource
from refig.once import OncePerKey
from refig.plugins import Registry
from refig.protocols import Executor
from refig.records import PluginKind

T = TypeVar("T")
R = TypeVar("R")

# A stand-in renderer: the test is about what the engine asks of it and when, not about pixels
# (the LibreOffice renderer's warm_up is tested against a real LibreOffice in its plugin).
HOOKS = """
from refig import hookimpl
from refig.models import ErrorInfo
from refig.protocols import Renderer, RenderOutput
from refig.records import RendererRecord

CALLS = []


class Recorder(Renderer):
    settings = "recorded"
    version = "1"
    fonts = ()

    def warm_up(self, offices):
        CALLS.append(("warm_up", offices))

    def render(self, jobs, out_dir):
        CALLS.append(("render", len(jobs)))
        return [RenderOutput(error=ErrorInfo(kind="render_failed", message="recorded"))
                for _ in jobs]

    def close(self):
        CALLS.append(("close", 0))


@hookimpl
def refig_renderers():
    yield RendererRecord(name="recorder", description="records the engine's calls",
                         factory=lambda **_: Recorder())
"""


class Elsewhere(Executor):
    """An executor whose work runs in other processes (as Ray's): it says nothing of that."""

    def map(self, fn: Callable[[T], R], items: Sequence[T], *,
            jobs: int) -> Iterator[tuple[T, R | BaseException]]:
        for item in items:
            yield item, fn(item)

    def close(self) -> None:
        pass


def slides(folder: Path, count: int) -> list[str]:
    paths = []
    for index in range(count):
        prs = Presentation()
        prs.slides.add_slide(prs.slide_layouts[6]).shapes.add_textbox(0, 0, 100, 100).text = (
            f"slide {index}")
        path = folder / f"s{index}.pptx"
        prs.save(path)
        paths.append(str(path))
    return paths


def check(tmp_path: Path, make_dist, files: int, executor, jobs: int) -> list[tuple[str, int]]:
    package = make_dist("refig-renderer-recorder", HOOKS)
    registry = Registry.load()
    plugins.use_registry(registry)
    try:
        renderer = registry.resolve(PluginKind.RENDERER, "recorder")
        source = FileSource("figure-to-slide", slides(tmp_path, files), tmp_path / "pages")
        Engine(renderer, [], executor, jobs=jobs, quiet=True).run(source)
    finally:
        plugins.close_plugins()
    return list(importlib.import_module(f"{package.name}.hooks").CALLS)


def test_the_renderer_warms_up_what_the_render_stage_uses_before_it(tmp_path, make_dist):
    calls = check(tmp_path, make_dist, files=17, executor=LocalExecutor(), jobs=2)
    assert calls[0] == ("warm_up", 2)  # two batches of 9 and 8 files, one office each
    assert sorted(calls[1:3]) == [("render", 8), ("render", 9)] and calls[3:] == [("close", 0)]


@pytest.mark.parametrize("files", [1, 7, 15])
def test_too_few_files_for_a_second_office_warm_one(tmp_path, make_dist, files):
    calls = check(tmp_path, make_dist, files=files, executor=LocalExecutor(), jobs=2)
    assert calls == [("warm_up", 1), ("render", files), ("close", 0)]


def test_no_warm_up_when_the_stages_run_elsewhere(tmp_path, make_dist):
    calls = check(tmp_path, make_dist, files=16, executor=Elsewhere(), jobs=2)
    assert calls == [("render", 8), ("render", 8), ("close", 0)]


def test_making_one_plugin_does_not_hold_up_another(monkeypatch: pytest.MonkeyPatch) -> None:
    other_made, slow_started = threading.Event(), threading.Event()
    seen: list[bool] = []

    class Slow:
        def create(self) -> object:
            slow_started.set()
            seen.append(other_made.wait(timeout=60))  # the other plugin is made meanwhile
            return "slow"

    class Quick:
        def create(self) -> object:
            return "quick"

    class Resolver:
        def resolve(self, kind: PluginKind, name: str) -> object:
            return Slow() if name == "slow" else Quick()

    monkeypatch.setattr(plugins, "_registry", Resolver())
    monkeypatch.setattr(plugins, "_plugins", OncePerKey())
    slow = threading.Thread(target=plugins.plugin, args=(PluginKind.RENDERER, "slow"))
    slow.start()
    assert slow_started.wait(timeout=60)  # the slow one is being made
    assert plugins.plugin(PluginKind.METRIC, "quick") == "quick"
    other_made.set()
    slow.join()
    assert seen == [True]
    assert plugins.plugin(PluginKind.RENDERER, "slow") == "slow"  # made once, then shared
