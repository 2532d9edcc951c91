"""Registers the figure-to-code family, its realiser (`program`) and its suite builders."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from refig.plugin import (
    Deliverable,
    InputSpec,
    RendererRecord,
    SuiteRecord,
    TaskFamilyRecord,
    hookimpl,
)

from refig_family_figure_to_code.command import code_sample_command, figcodebench_command
from refig_family_figure_to_code.demo import DEMO
from refig_family_figure_to_code.roles import DATA_PREFIX, FIGURE, PROGRAM, REFERENCE_CODE

FIGURE_TO_CODE = "figure-to-code"

PROMPTS = Path(__file__).parent / "prompts"
RUBRIC = Path(__file__).parent / "rubrics" / "mmos-v1.toml"
#: The golden programs of its canary, one per language, and their expected images.
CANARY = Path(__file__).parent / "canary"


def _family(**options: Any) -> Any:
    from refig_family_figure_to_code.family import CodeFamily

    return CodeFamily()


def _renderer(**options: Any) -> Any:
    from refig_family_figure_to_code.realiser import ProgramRenderer

    return ProgramRenderer(**options)


def _checks() -> Iterator[Any]:
    from refig_family_figure_to_code.checks import toolchain_checks

    return toolchain_checks()


def _figcodebench(**options: Any) -> Any:
    from refig_family_figure_to_code.suites.figcodebench import build_figcodebench

    return build_figcodebench


def _code_sample(**options: Any) -> Any:
    from refig_family_figure_to_code.suites.code_sample import build_code_sample

    return build_code_sample


def _viewer() -> Any:
    from refig_family_figure_to_code.view import VIEW

    return VIEW


def _canary() -> Any:
    from refig_command_canary import GoldenDocument, GoldenSet

    python, octave, r, latex = (GoldenDocument(file, cases) for file, cases in (
        ("plot_python.py", "matplotlib (Agg): line, bars, legend, DejaVu text"),
        ("plot_octave.m", "GNU Octave (gnuplot toolkit): two lines, legend, FreeFont text"),
        ("plot_r.R", "R (png device): points and lines, legend, fontconfig text"),
        ("plot_latex.tex", "XeLaTeX + pgfplots: axis, lines, bars, Latin Modern text")))
    return GoldenSet(name="programs", folder=CANARY, renderer="program",
                     documents=(python, octave, r, latex))


@hookimpl
def refig_task_families() -> Iterator[TaskFamilyRecord]:
    yield TaskFamilyRecord(
        name=FIGURE_TO_CODE,
        description="FigCodeBench: a figure to one plotting program in Python, MATLAB, R or "
                    "LaTeX, run for real in a sandbox.",
        factory=_family,
        inputs=(
            InputSpec(FIGURE, visible=True, description="the figure to reproduce"),
            InputSpec(REFERENCE_CODE, visible=False, description="the reference program"),
            InputSpec(DATA_PREFIX + "*", visible=True, required=False,
                      description="data files the program reads, beside it under their name"),
        ),
        deliverables=(Deliverable(PROGRAM, "figure.*", primary=True),),
        suffixes=(".py", ".m", ".r", ".tex"),
        renderer="program",
        metrics=("code",),
        judges=("code-metrics",),
        rubric=RUBRIC,
        prompts={p.name.split(".")[0]: p for p in sorted(PROMPTS.glob("*.md"))
                 if p.name != "README.md"},
        checks=_checks,
        demo=DEMO,
        viewer=_viewer,
        canary=_canary,
    )


@hookimpl
def refig_renderers() -> Iterator[RendererRecord]:
    yield RendererRecord(
        name="program",
        description="Runs a figure-to-code program in the sandbox (Python, Octave, R, xelatex) "
                    "and returns its image.",
        factory=_renderer,
        families=frozenset({FIGURE_TO_CODE}),
    )


@hookimpl
def refig_suites() -> Iterator[SuiteRecord]:
    yield SuiteRecord(
        name="figcodebench",
        description="Import a local copy of FigCodeBench's release (figures, code, auxinfo).",
        factory=_figcodebench,
        command=figcodebench_command,
        families=frozenset({FIGURE_TO_CODE}),
    )
    yield SuiteRecord(
        name="code-sample",
        description="Generated plotting tasks in four languages across seven categories.",
        factory=_code_sample,
        command=code_sample_command,
        families=frozenset({FIGURE_TO_CODE}),
    )
