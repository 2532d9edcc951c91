"""What one call of an LLM judge costs before it is made, for the stage's ``--budget``.

The price per token comes from ``--judge-opt input_cost_per_token=``/``output_cost_per_token=``
or litellm's price map; the prompt's tokens from litellm's token counter over the very messages
the judge would send (text and images). The answer's tokens cannot be known in advance: the
stage covers them with the largest cost a call of the judge has had so far.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from refig_toolkit_llm import import_litellm

from refig_judge_rubric.options import JudgeOptions


@dataclass(frozen=True)
class TokenPrice:
    """Dollars per input and per output token."""

    input: float
    output: float


def token_price(options: JudgeOptions) -> TokenPrice | None:
    """The judge's price per token, or None when neither the options nor litellm know it."""
    known: dict[str, Any] = {}
    if options.input_cost_per_token is None or options.output_cost_per_token is None:
        try:
            known = import_litellm().get_model_info(options.model)
        except Exception:  # litellm raises for a model it has no price for
            known = {}
    given_in, given_out = options.input_cost_per_token, options.output_cost_per_token
    price_in = given_in if given_in is not None else known.get("input_cost_per_token")
    price_out = given_out if given_out is not None else known.get("output_cost_per_token")
    if price_in is None or price_out is None:
        return None
    return TokenPrice(float(price_in), float(price_out))


def prompt_cost(options: JudgeOptions, price: TokenPrice | None,
                messages: list[dict[str, Any]]) -> float | None:
    """The input side of one call: the prompt's tokens at the input price."""
    if price is None:
        return None
    try:
        tokens = import_litellm().token_counter(model=options.model, messages=messages)
    except Exception:  # a message shape the counter cannot read: no estimate
        return None
    return tokens * price.input
