"""Registers the `qwen` judge; litellm is imported only when it is built."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from refig.plugin import JudgeRecord, hookimpl


def _factory(argument: str | None = None, **options: Any) -> Any:
    from refig_judge_qwen.qwen import make_qwen_judge

    return make_qwen_judge(argument, **options)


@hookimpl
def refig_judges() -> Iterator[JudgeRecord]:
    yield JudgeRecord(
        name="qwen",
        description="The rubric judge on an open-weight Qwen model (default Qwen3.6-27B) served "
        "by vLLM, SGLang or Ollama at REFIG_QWEN_API_BASE; thinking off.",
        factory=_factory,
        families=frozenset({"figure-to-slide"}),
        accepts_argument=True,
    )
