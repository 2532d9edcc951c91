"""Why an attempt left nothing to score, and whether the model or the infrastructure is to blame.

An infrastructure failure is one the model under test did not cause: the provider refused or
broke the call (``bad_request``, ``auth_error``, ``rate_limited``, ``api_error``,
``stream_error``, ``malformed_response``), never answered (``upstream_unreachable``, a model
call's own ``timeout``), or the harness could not start (``missing_key``, ``harness_missing``,
``setup_error``). The report counts these apart and leaves them out of every mean unless
``--count-failures`` scores them 0 like a model's own failure (``no_output``, an attempt
deadline, a harness that exited non-zero...).
"""

from __future__ import annotations

import re

from refig.models import ErrorInfo

#: Error kinds that say the provider or the set-up failed, never the model.
INFRASTRUCTURE = frozenset({
    "bad_request", "auth_error", "rate_limited", "api_error", "stream_error",
    "malformed_response", "upstream_unreachable", "missing_key", "harness_missing",
    "setup_error",
})

#: How a model call's failure names itself (``refig.gateway.calls.ModelCall.error_info``).
_CALL_FAILURE = re.compile(r"^\S+ call \d+ \((?:HTTP \d+|no response)\)")


def is_infrastructure(error: ErrorInfo | None) -> bool:
    """True when the failure lies with the provider or the set-up, not the model under test:
    a kind of :data:`INFRASTRUCTURE`, or a ``timeout`` of one model call (the provider's) rather
    than the attempt's deadline."""
    if error is None:
        return False
    if error.kind in INFRASTRUCTURE:
        return True
    return error.kind == "timeout" and bool(_CALL_FAILURE.match(error.message))
