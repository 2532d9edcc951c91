"""Which failures are the infrastructure's: the messages the gateway and litellm really write
for a provider's refusal or timeout, against the attempt's own deadline and a model's failure."""

from __future__ import annotations

import pytest
from refig.models import ErrorInfo
from refig_toolkit_agent.gateway.calls import ModelCall, status_kind
from refig_toolkit_agent.gateway.usage import Api
from refig_toolkit_analysis.analysis.failures import is_infrastructure


def _call(status: int | None, error: str) -> ModelCall:
    return ModelCall(index=3, api=Api.OPENAI_CHAT, method="POST", path="/v1/chat/completions",
                     model="gpt-x", status=status, error=error, message="read timed out",
                     started_at=0.0)


@pytest.mark.parametrize("status", [None, 400, 401, 429, 500, 503])
def test_every_refused_or_unanswered_model_call_is_the_infrastructure_s(status) -> None:
    kind = status_kind(status)
    assert kind is not None
    info = _call(status, kind).error_info()
    assert info is not None and is_infrastructure(info)


def test_a_provider_timeout_is_the_infrastructure_s_the_attempt_deadline_the_model_s() -> None:
    gateway = _call(None, "timeout").error_info()
    assert gateway is not None and gateway.kind == "timeout" and is_infrastructure(gateway)
    litellm = pytest.importorskip("litellm")
    from refig_toolkit_llm.client import classify

    timed_out = classify(litellm, litellm.Timeout("Request timed out.", "gpt-x", "openai"))
    assert timed_out.kind == "timeout" and is_infrastructure(timed_out)
    for message in ("the attempt reached its deadline",
                    "the harness did not return within 30s of its deadline", ""):
        assert not is_infrastructure(ErrorInfo(kind="timeout", message=message))


@pytest.mark.parametrize("kind", ["no_output", "exit_status", "harness_error", "no_code",
                                  "max_turns", "output_refused"])
def test_the_model_s_own_failures_are_not(kind: str) -> None:
    assert not is_infrastructure(ErrorInfo(kind=kind, message="anything"))
    assert not is_infrastructure(None)
