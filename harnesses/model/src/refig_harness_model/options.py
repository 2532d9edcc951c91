"""The options of the ``model`` harness (``--harness-opt KEY=VALUE``), validated with pydantic."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from refig.plugin import UsageError


class ModelOptions(BaseModel):
    """What one call needs beyond the model name; unknown keys are refused."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    upstream: str | None = None
    prices: str | None = None
    temperature: float | None = Field(default=None, ge=0, le=2)
    top_p: float | None = Field(default=None, gt=0, le=1)
    seed: int | None = None
    reasoning_effort: str | None = None
    max_tokens: int | None = Field(default=None, gt=0)
    timeout: float = Field(default=600.0, gt=0)
    max_retries: int = Field(default=2, ge=0, le=10)
    max_image_side: int = Field(default=2048, ge=64, le=8192)


def parse_options(values: Mapping[str, Any]) -> ModelOptions:
    """Validate ``--harness-opt`` values; a wrong key or value is a usage error naming the keys."""
    given = {k: v for k, v in values.items() if v not in (None, "")}
    try:
        return ModelOptions.model_validate(given)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'options'}: {e['msg']}"
            for e in exc.errors(include_url=False)
        )
        raise UsageError(f"bad --harness-opt for harness model: {problems}",
                         fix=f"accepted keys: {', '.join(ModelOptions.model_fields)}") from exc
