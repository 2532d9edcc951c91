"""Registers the ``direct`` and ``specialized`` workflows (light: the logic loads on selection)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from refig import hookimpl
from refig.records import TaskKind, WorkflowRecord


def _direct(**options: Any) -> Any:
    from refig_workflow_standard.workflows import DirectWorkflow

    return DirectWorkflow(**options)


def _specialized(**options: Any) -> Any:
    from refig_workflow_standard.workflows import SpecializedWorkflow

    return SpecializedWorkflow(**options)


@hookimpl
def refig_workflows() -> Iterator[WorkflowRecord]:
    kinds = frozenset({TaskKind.FIGURE_TO_SLIDE})
    yield WorkflowRecord(
        name="direct",
        description="One instruction, the same in every harness: build the slide with python-pptx.",
        factory=_direct,
        task_kinds=kinds,
    )
    yield WorkflowRecord(
        name="specialized",
        description="The direct goal plus a PPTX toolchain (render, inspect, compare) in the "
        "workspace, delivered as a Claude Code skill, an AGENTS.md or a README.",
        factory=_specialized,
        task_kinds=kinds,
    )
