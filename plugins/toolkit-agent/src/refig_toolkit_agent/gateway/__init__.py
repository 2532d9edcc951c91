"""The recording model gateway: every model call of an attempt, its tokens, latency and cost.

Shared by all harness adapters (so their numbers are comparable): :class:`Gateway` is the
pass-through proxy, :mod:`refig_toolkit_agent.gateway.calls` turns its record into turns,
tokens and cost, and :mod:`refig_toolkit_agent.gateway.pricing` prices tokens with litellm's map
and an override file.
"""

from refig_toolkit_agent.gateway.calls import CallSummary, ModelCall, read_calls, summarize
from refig_toolkit_agent.gateway.pricing import Price, PriceTable
from refig_toolkit_agent.gateway.proxy import DUMMY_KEY, Gateway, Upstream
from refig_toolkit_agent.gateway.usage import Api

__all__ = ["DUMMY_KEY", "Api", "CallSummary", "Gateway", "ModelCall", "Price", "PriceTable",
           "Upstream", "read_calls", "summarize"]
