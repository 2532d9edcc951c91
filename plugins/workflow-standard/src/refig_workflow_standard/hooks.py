"""Registers the ``direct`` and ``specialized`` workflows (light: the logic loads on selection)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from refig.plugin import WorkflowRecord, hookimpl


def _direct(**options: Any) -> Any:
    from refig_workflow_standard.workflows import DirectWorkflow

    return DirectWorkflow(**options)


def _specialized(**options: Any) -> Any:
    from refig_workflow_standard.workflows import SpecializedWorkflow

    return SpecializedWorkflow(**options)


@hookimpl
def refig_workflows() -> Iterator[WorkflowRecord]:
    kinds = frozenset({"figure-to-slide"})
    yield WorkflowRecord(
        name="direct",
        description="One instruction, the same in every harness: build the slide with python-pptx.",
        factory=_direct,
        families=kinds,
    )
    yield WorkflowRecord(
        name="specialized",
        description="The direct goal plus a PPTX toolchain (render, inspect, compare) in the "
        "workspace, delivered as a Claude Code skill, an AGENTS.md or a README.",
        factory=_specialized,
        families=kinds,
    )
