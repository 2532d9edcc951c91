"""One structured answer from a model: ask under a strict JSON schema, parse, and on a bad
answer ask again quoting what was wrong, accumulating what every call cost."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from refig.plugin import ErrorInfo, Usage

from refig_toolkit_llm.client import CallError, ChatClient

V = TypeVar("V")


class AnswerRejected(ValueError):
    """Raised by a parser for an answer that does not fit: its message is quoted back."""


@dataclass
class Structured(Generic[V]):
    """The parsed answer (or the typed reason there is none) and the cost of getting it."""

    value: V | None = None
    error: ErrorInfo | None = None
    usage: Usage = field(default_factory=Usage)
    cost_usd: float | None = 0.0
    seconds: float = 0.0
    calls: int = 0


def correction(problem: str) -> dict[str, Any]:
    """The message that quotes a rejected answer's problem back to the model."""
    return {
        "role": "user",
        "content": f"Your answer was rejected: {problem}. Reply again with only the JSON object "
        "the schema asks for, every field within its range.",
    }


def structured_call(
    client: ChatClient,
    messages: list[dict[str, Any]],
    response_format: dict[str, Any],
    parse: Callable[[str | None], V],
    *,
    retries: int = 2,
    tag: str | None = None,
    corrected: Callable[[str], dict[str, Any]] = correction,
) -> Structured[V]:
    """Ask until ``parse`` accepts the answer (at most ``1 + retries`` calls). ``parse`` raises
    ``ValueError`` (e.g. :class:`AnswerRejected`) for a bad answer; a call that gets no answer
    ends it with the call's typed error, all retries spent with ``invalid_answer``. Never
    raises for the model's behaviour."""
    found: Structured[V] = Structured()
    problem = ""
    for _ in range(1 + retries):
        found.calls += 1
        try:
            reply = client.complete(messages, response_format, tag=tag)
        except CallError as exc:
            found.error = exc.error
            return found
        found.usage += reply.usage
        found.seconds += reply.seconds
        if reply.cost_usd is None or found.cost_usd is None:
            found.cost_usd = None
        else:
            found.cost_usd += reply.cost_usd
        try:
            found.value = parse(reply.content)
        except ValueError as exc:
            problem = str(exc)
            messages = [*messages, {"role": "assistant", "content": reply.content or ""},
                        corrected(problem)]
            continue
        return found
    found.error = ErrorInfo(kind="invalid_answer",
                            message=f"no valid answer in {1 + retries} tries; last: {problem}")
    return found
