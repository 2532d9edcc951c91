"""Registers the deck-edit family and its suites, metric, judges and baselines; every factory
imports its module only when selected."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from refig.plugin import (
    Deliverable,
    HarnessRecord,
    InputSpec,
    JudgeRecord,
    MetricRecord,
    SuiteRecord,
    TaskFamilyRecord,
    UsageError,
    hookimpl,
)

from refig_family_deck_edit.commands import deck_sample_command, pptarena_command
from refig_family_deck_edit.demo import DEMO

DECK_EDIT = "deck-edit"

HERE = Path(__file__).parent
RUBRIC = HERE / "rubrics" / "pptarena-v1.toml"
#: The agent workflows' prompt templates (written by the agents work, issue 15 item 7).
PROMPTS = {"direct": HERE / "prompts" / "direct.v1.md",
           "hybrid": HERE / "prompts" / "hybrid.v1.md"}
SERVES = frozenset({DECK_EDIT})


def _family(**options: Any) -> Any:
    from refig_family_deck_edit.family import DeckEdit

    return DeckEdit(**options)


def _viewer() -> Any:
    from refig_family_deck_edit.view import VIEW

    return VIEW


def _canary() -> Any:
    from refig_command_canary import GoldenDocument, GoldenSet
    from refig_toolkit_pptx import golden

    return GoldenSet(name="slides", folder=golden.FOLDER, renderer="libreoffice",
                     documents=(GoldenDocument(golden.DECK, golden.CASES, pages="all"),),
                     options={"width": golden.WIDTH}, fonts=golden.FONTS)


@hookimpl
def refig_task_families() -> Iterator[TaskFamilyRecord]:
    yield TaskFamilyRecord(
        name=DECK_EDIT,
        description="PPTArena: edit a real deck in place to follow an instruction, scored for "
        "instruction following and visual quality (0-5) against a target deck.",
        factory=_family,
        inputs=(
            InputSpec("deck", visible=True, description="the original deck to edit"),
            InputSpec("target", visible=False, description="the target deck (human or exact)"),
            InputSpec("style_target", visible=False,
                      description="the per-case scoring constraints (UTF-8 text)"),
            InputSpec("edit_spec", visible=False, required=False,
                      description="the exact edit specification (generated suites)"),
        ),
        deliverables=(Deliverable("deck", "edited.pptx", primary=True),),
        claims_suffixes=False,
        renderer="libreoffice",
        metrics=("deck-diff",),
        judges=("deck-metrics",),
        rubric=RUBRIC,
        prompts=PROMPTS,
        demo=DEMO,
        viewer=_viewer,
        canary=_canary,
    )


def _deck_sample(**options: Any) -> Any:
    from refig_family_deck_edit.sample.build import build_deck_sample

    return build_deck_sample


def _pptarena(**options: Any) -> Any:
    from refig_family_deck_edit.pptarena import build_pptarena

    return build_pptarena


@hookimpl
def refig_suites() -> Iterator[SuiteRecord]:
    yield SuiteRecord(
        name="deck-sample", factory=_deck_sample, command=deck_sample_command, families=SERVES,
        description="Generated deck edits (all 5 categories, all 16 operation types, "
        "cross-slide ones) with exact targets and edit specifications.")
    yield SuiteRecord(
        name="pptarena", factory=_pptarena, command=pptarena_command, families=SERVES,
        description="Import a local copy of the released PPTArena data (--from DIR), with "
        "provenance; refuses targets identical to their originals.")


def _metric(**options: Any) -> Any:
    from refig_family_deck_edit.metric import DeckDiffMetric

    return DeckDiffMetric()


@hookimpl
def refig_metrics() -> Iterator[MetricRecord]:
    yield MetricRecord(name="deck-diff", factory=_metric, families=SERVES,
                       description="Edit recall, precision and collateral changes from the "
                       "structural diff; the spec oracle's IF on generated tasks.")


def _llm(argument: str | None = None, **options: Any) -> Any:
    from refig_family_deck_edit.judges.llm import build_deck_judge

    model = argument or options.pop("model", None)
    if not model:
        raise UsageError("the deck-llm judge needs a model",
                         fix="write --judge deck-llm:PROVIDER/MODEL, e.g. "
                         "--judge deck-llm:openai/gpt-5.4-2026-03-05")
    return build_deck_judge(f"deck-llm:{model}", options, {"model": model})


def _proxy(argument: str | None = None, **options: Any) -> Any:
    from refig_family_deck_edit.judges.proxy import DeckMetricsJudge

    return DeckMetricsJudge(**options)


@hookimpl
def refig_judges() -> Iterator[JudgeRecord]:
    yield JudgeRecord(
        name="deck-llm", factory=_llm, families=SERVES, accepts_argument=True,
        description="IF and VQ (0-5) by any litellm model: --judge deck-llm:PROVIDER/MODEL; "
        "--judge-opt evidence=dual|dual-nodiff|single, max_images=N (a model's per-call image "
        "limit: VQ is then split over the fewest calls, their slide-weighted mean).")
    yield JudgeRecord(
        name="deck-metrics", factory=_proxy, families=SERVES,
        description="Offline proxy: IF from the structural diff (the spec oracle on generated "
        "tasks), VQ from how far the selected slides went from the original's look to the "
        "target's; labelled proxy.")


def _identity(**options: Any) -> Any:
    from refig_family_deck_edit.baselines import identity

    return identity(**options)


def _oracle(**options: Any) -> Any:
    from refig_family_deck_edit.baselines import oracle

    return oracle(**options)


@hookimpl
def refig_harnesses() -> Iterator[HarnessRecord]:
    yield HarnessRecord(name="identity", factory=_identity, families=SERVES, needs_model=False,
                        runs_agent=False,
                        description="Returns the original deck unchanged: the floor (IF near 0).")
    yield HarnessRecord(name="oracle", factory=_oracle, families=SERVES, needs_model=False,
                        runs_agent=False, local_options=frozenset({"suite"}),
                        description="Returns the hidden target deck (read from the run's --suite): "
                        "an oracle for validating judges, marked as such in every table.")
