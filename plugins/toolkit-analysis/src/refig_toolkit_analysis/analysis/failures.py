"""Why an attempt left nothing to score, and whether the model or the infrastructure is to blame.

An infrastructure failure is one the model under test did not cause: the provider refused or
broke the call (``bad_request``, ``auth_error``/``auth``, ``rate_limited``, ``api_error``/
``server_error``, ``not_found``, ``stream_error``, ``malformed_response``), never answered
(``upstream_unreachable``/``connection``, or a ``timeout`` of the provider: a model call's, as
the gateway or litellm names it, not the attempt's deadline), or the harness could not start
(``missing_key``, ``harness_missing``, ``setup_error``). The report counts these apart and
leaves them out of every mean unless ``--count-failures`` scores them 0 like a model's own
failure (``no_output``, the attempt's deadline, a harness that exited non-zero...).
"""

from __future__ import annotations

import re

from refig.models import ErrorInfo

#: Error kinds that say the provider or the set-up failed, never the model.
INFRASTRUCTURE = frozenset({
    "bad_request", "auth_error", "auth", "rate_limited", "api_error", "server_error",
    "not_found", "stream_error", "malformed_response", "upstream_unreachable", "connection",
    "missing_key", "harness_missing", "setup_error",
})

#: How a provider's timeout names itself: a gateway call (``ModelCall.error_info``) or
#: litellm's ``Timeout`` (``refig_toolkit_llm.client.classify``).
_PROVIDER_TIMEOUT = re.compile(r"^(?:\S+ call \d+ \((?:HTTP \d+|no response)\)|Timeout: )")


def is_infrastructure(error: ErrorInfo | None) -> bool:
    """True when the failure lies with the provider or the set-up, not the model under test:
    a kind of :data:`INFRASTRUCTURE`, or a ``timeout`` of the provider's call rather than the
    attempt's deadline."""
    if error is None:
        return False
    if error.kind in INFRASTRUCTURE:
        return True
    return error.kind == "timeout" and bool(_PROVIDER_TIMEOUT.match(error.message))
