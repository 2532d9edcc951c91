"""The recording model gateway: every model call of an attempt, its tokens, latency and cost.

Shared by all harness adapters (so their numbers are comparable): :class:`Gateway` is the
pass-through proxy, :mod:`refig.gateway.calls` turns its record into turns, tokens and cost, and
:mod:`refig.gateway.pricing` prices tokens with litellm's map and an override file.
"""

from refig.gateway.calls import CallSummary, ModelCall, read_calls, summarize
from refig.gateway.pricing import Price, PriceTable
from refig.gateway.proxy import DUMMY_KEY, Gateway, Upstream
from refig.gateway.usage import Api

__all__ = ["DUMMY_KEY", "Api", "CallSummary", "Gateway", "ModelCall", "Price", "PriceTable",
           "Upstream", "read_calls", "summarize"]
