"""The options of an LLM rubric judge (``--judge-opt KEY=VALUE``), validated with pydantic."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from refig.errors import UsageError
from refig.judging import STAGE_OPTIONS

#: Options that change what the judge answers, so they are part of its cache key and label.
#: Transport options (api_base, api_key, timeout, answer_retries, prices) are not: pointing the
#: same model at another address, or retrying more, must not judge everything again.
IDENTITY = (
    "model", "temperature", "top_p", "seed", "reasoning_effort", "max_tokens",
    "max_image_side", "extra_body",
)


class JudgeOptions(BaseModel):
    """Everything a litellm call of the judge needs; unknown keys are refused."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str = Field(min_length=1)
    api_base: str | None = None
    api_key: str | None = None
    temperature: float | None = Field(default=None, ge=0, le=2)
    top_p: float | None = Field(default=None, gt=0, le=1)
    seed: int | None = None
    reasoning_effort: str | None = None
    max_tokens: int | None = Field(default=None, gt=0)
    timeout: float = Field(default=180.0, gt=0)
    answer_retries: int = Field(default=2, ge=0, le=10)
    max_image_side: int = Field(default=2048, ge=64, le=8192)
    input_cost_per_token: float | None = Field(default=None, ge=0)
    output_cost_per_token: float | None = Field(default=None, ge=0)
    extra_body: dict[str, Any] | None = None

    @field_validator("extra_body", mode="before")
    @classmethod
    def _json(cls, value: Any) -> Any:
        """``--judge-opt extra_body='{"k": 1}'`` arrives as text: parse it."""
        if not isinstance(value, str):
            return value
        try:
            return json.loads(value)
        except json.JSONDecodeError as exc:
            raise ValueError(f"not JSON ({exc.msg} at char {exc.pos})") from exc

    def identity(self) -> dict[str, Any]:
        """The options that define what the judge is, for its key."""
        return {name: getattr(self, name) for name in IDENTITY}


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
