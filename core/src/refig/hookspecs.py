"""The hooks a refig plugin can implement.

Registration hooks take no arguments and return (or yield) frozen records from
:mod:`refig.records`. They must be cheap: import heavy libraries inside the record's factory, not
at module level. Each hook is documented in ``docs/plugins.md``; a test keeps the two in step.
Each ``Example::`` runs as an installed plugin's ``hooks`` module with the names of
:mod:`refig.plugin` (``core/tests/test_hook_examples.py``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    import typer

    from refig.records import (
        ExecutorRecord,
        HarnessRecord,
        JudgeRecord,
        MetricRecord,
        RendererRecord,
        ReporterRecord,
        SuiteRecord,
        TaskFamilyRecord,
        WorkflowRecord,
    )

PROJECT = "refig"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def refig_task_families() -> Iterable[TaskFamilyRecord]:
    """Register task families: the kind of task, what the agent sees and delivers, how the
    artifact is inspected, gated, realised and judged, and the family's report sections.

    Example::

        @hookimpl
        def refig_task_families():
            yield TaskFamilyRecord(
                name="figure-to-web", description="Rebuild a figure as an HTML page",
                factory=lambda: FigureToWeb(),  # your TaskFamily; import it in here
                inputs=(InputSpec("figure", visible=True),),
                deliverables=(Deliverable("page", "index.html", primary=True),),
                renderer="chromium", metrics=("image",), judges=("metrics",),
            )

    Returns: an iterable of :class:`refig.records.TaskFamilyRecord`.
    """


@hookspec
def refig_suites() -> Iterable[SuiteRecord]:
    """Register suite builders, used by ``refig suite build NAME``.

    Example::

        def build(out, n: int = 10):  # keyword parameters become the command's options
            return out

        @hookimpl
        def refig_suites():
            yield SuiteRecord(name="my-suite", description="Figures from my lab",
                              factory=dict, command=build)

    Returns: an iterable of :class:`refig.records.SuiteRecord`.
    """


@hookspec
def refig_harnesses() -> Iterable[HarnessRecord]:
    """Register harness adapters, selected with ``refig run --harness NAME``.

    Example::

        @hookimpl
        def refig_harnesses():
            yield HarnessRecord(name="my-cli", description="My coding agent",
                                factory=lambda **options: MyCliHarness(**options))

    Returns: an iterable of :class:`refig.records.HarnessRecord`.
    """


@hookspec
def refig_workflows() -> Iterable[WorkflowRecord]:
    """Register workflows, selected with ``refig run --workflow NAME``.

    Example::

        @hookimpl
        def refig_workflows():
            yield WorkflowRecord(name="sketch-first", description="Sketch, then build",
                                 factory=lambda **options: SketchFirst())

    Returns: an iterable of :class:`refig.records.WorkflowRecord`.
    """


@hookspec
def refig_executors() -> Iterable[ExecutorRecord]:
    """Register executors, selected with ``--executor NAME`` on ``run`` and ``evaluate``.

    Example::

        @hookimpl
        def refig_executors():
            yield ExecutorRecord(name="slurm", description="Attempts as Slurm jobs",
                                 factory=lambda **options: SlurmExecutor(**options))

    Returns: an iterable of :class:`refig.records.ExecutorRecord`.
    """


@hookspec
def refig_renderers() -> Iterable[RendererRecord]:
    """Register renderers, selected with ``--renderer NAME``.

    Example::

        @hookimpl
        def refig_renderers():
            yield RendererRecord(name="powerpoint", description="PowerPoint on Windows via COM",
                                 factory=lambda **options: PowerPointRenderer(**options))

    Returns: an iterable of :class:`refig.records.RendererRecord`.
    """


@hookspec
def refig_metrics() -> Iterable[MetricRecord]:
    """Register metric families, run by ``refig evaluate`` and ``refig check``.

    Example::

        @hookimpl
        def refig_metrics():
            yield MetricRecord(name="font-count", description="Distinct fonts on the page",
                               factory=lambda **options: FontCount(),
                               families=frozenset({"figure-to-web"}))

    Returns: an iterable of :class:`refig.records.MetricRecord`.
    """


@hookspec
def refig_judges() -> Iterable[JudgeRecord]:
    """Register judges, selected with ``refig evaluate --judge NAME``.

    Example::

        @hookimpl
        def refig_judges():
            yield JudgeRecord(name="my-vlm", description="My local VLM", accepts_argument=True,
                              factory=lambda argument=None, **options: MyJudge(argument))

    Returns: an iterable of :class:`refig.records.JudgeRecord`.
    """


@hookspec
def refig_reporters() -> Iterable[ReporterRecord]:
    """Register reporters, used by ``refig report``.

    Example::

        @hookimpl
        def refig_reporters():
            yield ReporterRecord(name="wandb", description="Upload tables to Weights & Biases",
                                 factory=lambda **options: WandbReporter(**options))

    Returns: an iterable of :class:`refig.records.ReporterRecord`.
    """


@hookspec
def refig_commands(app: typer.Typer, registry: Any) -> None:
    """Add subcommands to the ``refig`` command line. ``registry`` (the loaded plugins, a
    :class:`refig.plugins.Registry`) is for a command that works on other plugins' records;
    declare only the arguments you use.

    Example::

        @hookimpl
        def refig_commands(app):
            @app.command()
            def hello():
                print("hello")

    Returns: nothing; the hook adds commands to ``app``.
    """
