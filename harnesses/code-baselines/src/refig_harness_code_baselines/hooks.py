"""Registers the figure-to-code baselines `reference`, `blank` and `smuggle`."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import Any

from refig.plugin import HarnessRecord, hookimpl

FIGURE_TO_CODE = "figure-to-code"


def _make(kind: str, **options: Any) -> Any:
    from refig_harness_code_baselines.harness import CodeBaseline

    return CodeBaseline(kind, **options)


@hookimpl
def refig_harnesses() -> Iterator[HarnessRecord]:
    code = frozenset({FIGURE_TO_CODE})
    yield HarnessRecord(name="reference", factory=partial(_make, "reference"), families=code,
                        needs_model=False, runs_agent=False, local_options=frozenset({"suite"}),
                        description="The task's reference program (read from the run's --suite): "
                        "must reach the maximum.")
    yield HarnessRecord(name="blank", factory=partial(_make, "blank"), families=code,
                        needs_model=False, runs_agent=False,
                        description="An empty figure of the target size: the floor.")
    yield HarnessRecord(name="smuggle", factory=partial(_make, "smuggle"), families=code,
                        needs_model=False, runs_agent=False,
                        description="Reproduces the figure from its pixels: the cheat the "
                        "smuggling cap must catch.")
