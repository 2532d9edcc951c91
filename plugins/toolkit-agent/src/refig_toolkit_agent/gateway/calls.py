"""The gateway's record of model calls, and what an attempt takes from it: turns, tokens, cost.

One call is one HTTP request to a model endpoint. **A turn is one model call that completed**
(status 2xx and, when streamed, the final event received), whichever harness made it and for
whatever purpose (the agent loop or a helper call such as a title); so turns count the same way
for every harness. Tokens add up over every call, failed ones included (a cut stream may have
reported its input tokens before it broke).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict
from refig.models import ErrorInfo, Usage

from refig_toolkit_agent.gateway.pricing import PriceTable
from refig_toolkit_agent.gateway.usage import Api, Tokens

RETRYABLE = frozenset({"rate_limited", "api_error", "stream_error", "malformed_response",
                       "upstream_unreachable", "timeout", "aborted"})


def status_kind(status: int | None) -> str | None:
    """The typed failure an HTTP status means, or None for success."""
    if status is None:
        return "upstream_unreachable"
    if 200 <= status < 300:
        return None
    if status == 429:
        return "rate_limited"
    if status in (401, 403):
        return "auth_error"
    if status == 408 or status >= 500:
        return "api_error"
    return "bad_request"


class ModelCall(BaseModel):
    """One call through the gateway, as written to ``calls.jsonl``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    index: int
    api: Api
    method: str
    path: str
    model: str | None = None
    stream: bool = False
    status: int | None = None
    ok: bool = False
    error: str | None = None
    message: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    usage_reported: bool = False
    cost_usd: float | None = None
    started_at: float
    first_byte_seconds: float | None = None
    latency_seconds: float = 0.0
    request_bytes: int = 0
    response_bytes: int = 0
    request_id: str | None = None
    retry_after: float | None = None

    @property
    def is_model_call(self) -> bool:
        return self.api is not Api.OTHER

    @property
    def tokens(self) -> Tokens:
        return Tokens(self.input_tokens, self.output_tokens, self.cached_tokens,
                      self.cache_write_tokens, self.reasoning_tokens)

    @property
    def usage(self) -> Usage:
        return Usage(input_tokens=self.input_tokens, output_tokens=self.output_tokens,
                     cached_tokens=self.cached_tokens, reasoning_tokens=self.reasoning_tokens)

    def error_info(self) -> ErrorInfo | None:
        if self.error is None:
            return None
        where = f"HTTP {self.status}" if self.status is not None else "no response"
        return ErrorInfo(kind=self.error, message=f"{self.model or 'model'} call {self.index} "
                         f"({where}): {self.message}".strip(), retryable=self.error in RETRYABLE,
                         retry_after=self.retry_after)


@dataclass
class CallSummary:
    """An attempt's numbers taken from its calls; ``last_error`` is set when the last model call
    failed (a failure followed by a success was retried away)."""

    turns: int = 0
    usage: Usage = field(default_factory=Usage)
    cost_usd: float | None = 0.0
    calls: int = 0
    failed: int = 0
    unpriced: tuple[str, ...] = ()
    last_error: ErrorInfo | None = None


def priced(call: ModelCall, prices: PriceTable) -> ModelCall:
    """The call with its cost filled in (None when its model has no known price)."""
    if not call.is_model_call:
        return call
    cost = prices.cost(call.model, call.tokens) if call.tokens != Tokens() else 0.0
    return call.model_copy(update={"cost_usd": cost})


def summarize(calls: Sequence[ModelCall]) -> CallSummary:
    """Turns, summed tokens, total cost and the final failure of an attempt's model calls."""
    summary = CallSummary()
    unpriced: list[str] = []
    for call in calls:
        if not call.is_model_call:
            continue
        summary.calls += 1
        summary.usage = summary.usage + call.usage
        if call.ok:
            summary.turns += 1
            summary.last_error = None
        else:
            summary.failed += 1
            summary.last_error = call.error_info()
        if call.cost_usd is None:
            unpriced.append(call.model or "?")
        elif summary.cost_usd is not None:
            summary.cost_usd += call.cost_usd
    if unpriced:
        summary.cost_usd = None
        summary.unpriced = tuple(sorted(set(unpriced)))
    return summary


def read_calls(path: Path) -> list[ModelCall]:
    """The calls written to a ``calls.jsonl`` file."""
    return [ModelCall.model_validate_json(line) for line in path.read_text().splitlines() if line]


def write_calls(path: Path, calls: Iterable[ModelCall]) -> Path:
    """Write calls as JSON lines."""
    with path.open("w") as handle:
        for call in calls:
            handle.write(json.dumps(call.model_dump(mode="json")) + "\n")
    return path
