"""Registers the ``model`` harness; litellm is imported only when it is built."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from refig.plugin import HarnessRecord, hookimpl

FIGURE_TO_CODE = "figure-to-code"


def _create(**options: Any) -> Any:
    from refig_harness_model.harness import ModelHarness

    return ModelHarness(**options)


@hookimpl
def refig_harnesses() -> Iterator[HarnessRecord]:
    yield HarnessRecord(
        name="model",
        description="One litellm call (no agent, no tools) with the figure and the `answer` "
        "workflow's prompt; the code in the answer is the program. Through refig's recording "
        "gateway; options: upstream, prices, temperature, top_p, seed, reasoning_effort, "
        "max_tokens, timeout, max_retries, max_image_side.",
        factory=_create,
        families=frozenset({FIGURE_TO_CODE}),
        runs_agent=False,  # one model call from refig's process; the program runs at evaluation
        # a price file only says where the prices are read from here; the upstream (which
        # provider served the model) stays part of the configuration
        local_options=frozenset({"prices"}),
    )
