"""Registers the `gpt-5.4` and `litellm` judges; litellm is imported only when one is built."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from refig.plugin import JudgeRecord, UsageError, hookimpl

#: The paper's pinned judge.
GPT_5_4 = {"model": "gpt-5.4-2026-03-05", "reasoning_effort": "low"}


def _gpt_5_4(argument: str | None = None, **options: Any) -> Any:
    from refig_judge_rubric.judge import build_judge

    return build_judge("gpt-5.4", options, GPT_5_4)


def _litellm(argument: str | None = None, **options: Any) -> Any:
    from refig_judge_rubric.judge import build_judge

    model = argument or options.pop("model", None)
    if not model:
        raise UsageError(
            "the litellm judge needs a model",
            fix="write --judge litellm:PROVIDER/MODEL, e.g. --judge litellm:openai/gpt-4o",
        )
    return build_judge(f"litellm:{model}", options, {"model": model})


@hookimpl
def refig_judges() -> Iterator[JudgeRecord]:
    slide = frozenset({"figure-to-slide"})
    yield JudgeRecord(
        name="gpt-5.4",
        description="The paper's rubric judge: gpt-5.4-2026-03-05, low reasoning effort "
        "(needs OPENAI_API_KEY).",
        factory=_gpt_5_4,
        families=slide,
    )
    yield JudgeRecord(
        name="litellm",
        description="The rubric judge on any litellm model: --judge litellm:PROVIDER/MODEL.",
        factory=_litellm,
        families=slide,
        accepts_argument=True,
    )
