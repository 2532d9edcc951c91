"""The options of an LLM rubric judge (``--judge-opt KEY=VALUE``), validated with pydantic."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from refig.plugin import STAGE_OPTIONS, UsageError
from refig_toolkit_llm import ChatOptions

#: The rubric judge's options are the options of its model call.
JudgeOptions = ChatOptions


def parse_options(judge: str, values: dict[str, Any]) -> JudgeOptions:
    """Validate ``--judge-opt`` values for ``judge``; a wrong key or value is a usage error."""
    try:
        return JudgeOptions.model_validate(values)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'options'}: {e['msg']}"
            for e in exc.errors(include_url=False)
        )
        accepted = ", ".join(k for k in JudgeOptions.model_fields if k != "model")
        raise UsageError(
            f"bad --judge-opt for judge {judge}: {problems}",
            fix=f"accepted keys: {accepted}; and for the judging stage: {', '.join(STAGE_OPTIONS)}",
        ) from exc
