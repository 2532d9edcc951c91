"""The options of one chat-completion model call (a judge's ``--judge-opt KEY=VALUE``)."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

#: Options that change what the model answers, so they belong in a judge's cache key and label.
#: Transport options (api_base, api_key, timeout, answer_retries, prices) are not: pointing the
#: same model at another address, or retrying more, must not judge everything again.
IDENTITY = (
    "model", "temperature", "top_p", "seed", "reasoning_effort", "max_tokens",
    "max_image_side", "extra_body",
)


class ChatOptions(BaseModel):
    """Everything a litellm call needs; unknown keys are refused."""

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
