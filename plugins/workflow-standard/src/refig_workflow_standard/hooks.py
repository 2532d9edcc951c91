"""Registers the standard workflows (light: the logic loads on selection).

Each takes its prompt from the task's family, so which families a workflow serves is decided by
the templates the families declare; these records name the first-party families with one.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from refig.plugin import WorkflowRecord, hookimpl

FIGURE_TO_SLIDE = "figure-to-slide"
DECK_EDIT = "deck-edit"
FIGURE_TO_CODE = "figure-to-code"


def _factory(name: str) -> Any:
    def create(**options: Any) -> Any:
        from refig_workflow_standard import workflows

        return {"direct": workflows.DirectWorkflow, "specialized": workflows.ToolchainWorkflow,
                "hybrid": workflows.HybridWorkflow,
                "answer": workflows.AnswerWorkflow}[name](**options)

    return create


@hookimpl
def refig_workflows() -> Iterator[WorkflowRecord]:
    yield WorkflowRecord(
        name="direct",
        description="One instruction, the same in every harness, from the task's family: build "
        "the slide, edit the deck, or write the plotting program.",
        factory=_factory("direct"),
        families=frozenset({FIGURE_TO_SLIDE, DECK_EDIT, FIGURE_TO_CODE}),
    )
    yield WorkflowRecord(
        name="specialized",
        description="The direct goal plus a PPTX toolchain (render, inspect, compare) in the "
        "workspace, delivered as a Claude Code skill, an AGENTS.md or a README.",
        factory=_factory("specialized"),
        families=frozenset({FIGURE_TO_SLIDE}),
    )
    yield WorkflowRecord(
        name="hybrid",
        description="PPTPilot-style deck editing: route each edit to python-pptx code or a "
        "validated OOXML patch, render, compare with the instruction, up to 3 loops.",
        factory=_factory("hybrid"),
        families=frozenset({DECK_EDIT}),
    )
    yield WorkflowRecord(
        name="answer",
        description="One answer holding the whole program (FigCodeBench's prompt), for the "
        "single-call `model` harness.",
        factory=_factory("answer"),
        families=frozenset({FIGURE_TO_CODE}),
    )
