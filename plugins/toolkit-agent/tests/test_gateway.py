"""The recording gateway, with real HTTP on both sides: a client, the gateway, a scripted server."""

from __future__ import annotations

import contextlib
import http.client
import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from refig.errors import RefigError
from refig_toolkit_agent.gateway import (
    DUMMY_KEY,
    Gateway,
    Price,
    PriceTable,
    Upstream,
    read_calls,
    summarize,
)
from refig_toolkit_agent.gateway.calls import status_kind
from refig_toolkit_agent.gateway.pricing import load_overrides
from refig_toolkit_agent.gateway.usage import Api, Tokens, api_of, parse_response
from refig_toolkit_testing.scripted import Fault, ScriptedServer

REAL_KEY = "sk-real-key-0123456789"
PRICES = PriceTable({"m": Price(input_cost_per_token=1e-6, output_cost_per_token=4e-6,
                                cache_read_input_token_cost=1e-7)}, base={})

# A request body per API, with one tool the scripted server knows how to call.
BODIES = {
    Api.ANTHROPIC_MESSAGES: ("/v1/messages", {
        "model": "m", "max_tokens": 100,
        "tools": [{"name": "Bash", "input_schema": {"type": "object"}}],
        "messages": [{"role": "user", "content": "Primary working directory: /w\nhi"}]}),
    Api.OPENAI_RESPONSES: ("/v1/responses", {
        "model": "m", "tools": [{"type": "function", "name": "exec_command"}],
        "input": [{"role": "user", "content": [{"type": "input_text", "text": "<cwd>/w</cwd>"}]}]}),
    Api.OPENAI_CHAT: ("/v1/chat/completions", {
        "model": "m", "tools": [{"type": "function", "function": {"name": "run_shell_command"}}],
        "messages": [{"role": "user", "content": "hi"}]}),
}


def post(url: str, body: dict, key: str = DUMMY_KEY) -> tuple[int, bytes]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json",
                                              "x-api-key": key, "Authorization": f"Bearer {key}"})
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return reply.status, reply.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("api", list(BODIES))
def test_calls_pass_through_and_are_recorded_as_the_server_served_them(
        api: Api, stream: bool, tmp_path: Path) -> None:
    path, body = BODIES[api]
    with ScriptedServer() as upstream, Gateway(
            Upstream(upstream.url, REAL_KEY, "x-api-key" if "messages" in path else "bearer"),
            prices=PRICES, log=tmp_path / "calls.jsonl") as gateway:
        status, content = post(gateway.url + path, {**body, "stream": stream})
        status2, _ = post(gateway.url + path, {**body, "stream": stream})
    assert status == status2 == 200
    assert parse_response(api, content, stream=stream).complete
    served = upstream.served
    calls = read_calls(tmp_path / "calls.jsonl")
    assert [c.index for c in calls] == [0, 1]
    for call, seen in zip(calls, served, strict=True):
        assert call.ok and call.api is api and call.stream is stream and call.model == "m"
        assert call.usage_reported
        assert (call.input_tokens, call.output_tokens, call.cached_tokens,
                call.cache_write_tokens, call.reasoning_tokens) == (
            seen.input_tokens, seen.output_tokens, seen.cached_tokens, seen.cache_write_tokens,
            seen.reasoning_tokens)
        fresh = seen.input_tokens - seen.cached_tokens
        assert call.cost_usd == pytest.approx(fresh * 1e-6 + seen.cached_tokens * 1e-7
                                              + seen.output_tokens * 4e-6)
    summary = summarize(calls)
    assert summary.turns == 2 and summary.failed == 0
    assert summary.usage.input_tokens == sum(s.input_tokens for s in served)


def test_the_real_key_replaces_the_dummy_and_is_never_written(tmp_path: Path) -> None:
    path, body = BODIES[Api.ANTHROPIC_MESSAGES]
    with ScriptedServer() as upstream, Gateway(Upstream(upstream.url, REAL_KEY, "x-api-key"),
                                               log=tmp_path / "calls.jsonl") as gateway:
        post(gateway.url + path, body)
    headers = {k.lower(): v for k, v in upstream.requests[0].headers.items()}
    assert headers["x-api-key"] == REAL_KEY
    assert "authorization" not in headers
    assert DUMMY_KEY not in json.dumps(headers)
    assert REAL_KEY not in (tmp_path / "calls.jsonl").read_text()


def test_openai_mount_maps_the_agent_base_url_onto_the_upstream_base() -> None:
    _, body = BODIES[Api.OPENAI_CHAT]
    with ScriptedServer() as upstream, Gateway(Upstream(upstream.url + "/v1", REAL_KEY,
                                                        mount="/v1")) as gateway:
        assert gateway.url.endswith("/v1")
        status, _ = post(gateway.url + "/chat/completions", body)
    assert status == 200
    assert upstream.requests[0].path == "/v1/chat/completions"
    assert upstream.requests[0].headers["Authorization"] == f"Bearer {REAL_KEY}"


@pytest.mark.parametrize(("fault", "kind"), [
    ("400", "bad_request"), ("429", "rate_limited"), ("500", "api_error"),
    ("malformed", "malformed_response"), ("cut", "stream_error"),
])
@pytest.mark.parametrize("api", list(BODIES))
def test_faults_become_typed_failed_calls(api: Api, fault: str, kind: str) -> None:
    path, body = BODIES[api]
    with ScriptedServer(faults=[Fault(fault, frozenset({0}))]) as upstream, Gateway(
            Upstream(upstream.url), prices=PRICES) as gateway:
        # A cut stream breaks the client's read too, as the upstream broke it.
        with contextlib.suppress(OSError, http.client.HTTPException):
            post(gateway.url + path, {**body, "stream": True})
        post(gateway.url + path, {**body, "stream": True})
    first, second = gateway.calls
    assert (first.ok, first.error) == (False, kind)
    assert second.ok
    # Tokens reported before the failure count, as the server reported them.
    assert first.input_tokens == upstream.served[0].input_tokens
    summary = summarize(gateway.calls)
    assert summary.turns == 1 and summary.failed == 1
    assert summary.last_error is None  # the failure was retried away by the next call
    assert summarize(gateway.calls[:1]).last_error == first.error_info()
    info = first.error_info()
    assert info is not None and info.kind == kind and info.retryable is (fault != "400")
    if fault == "429":
        assert info.retry_after == 0.0


def test_an_unreachable_upstream_is_a_typed_502() -> None:
    path, body = BODIES[Api.OPENAI_CHAT]
    with Gateway(Upstream("http://127.0.0.1:9")) as gateway:
        status, content = post(gateway.url + path, body)
    assert status == 502 and b"refig gateway" in content
    assert gateway.calls[0].error == "upstream_unreachable"


def test_a_call_in_flight_when_the_gateway_stops_is_recorded_as_aborted() -> None:
    import threading

    path, body = BODIES[Api.OPENAI_CHAT]
    with ScriptedServer(faults=[Fault("hang")]) as upstream:
        gateway = Gateway(Upstream(upstream.url), read_timeout=60).start()
        client = threading.Thread(target=lambda: _quiet_post(gateway.url + path, body),
                                  daemon=True)
        client.start()
        for _ in range(1200):  # up to 60 s for the call to reach the upstream (a bound on waiting)
            if upstream.served:
                break
            threading.Event().wait(0.05)
        gateway.stop()
    assert [(c.error, c.ok) for c in gateway.calls] == [("aborted", False)]


def _quiet_post(url: str, body: dict) -> None:
    with contextlib.suppress(OSError):
        post(url, body)


def test_usage_normalisation_per_api() -> None:
    anthropic = json.dumps({"model": "m", "usage": {
        "input_tokens": 10, "cache_read_input_tokens": 5, "cache_creation_input_tokens": 2,
        "output_tokens": 7}}).encode()
    assert parse_response(Api.ANTHROPIC_MESSAGES, anthropic, stream=False).tokens == Tokens(
        input=17, output=7, cached=5, cache_write=2)
    chat = json.dumps({"usage": {"prompt_tokens": 9, "completion_tokens": 4,
                                 "prompt_tokens_details": {"cached_tokens": 3},
                                 "completion_tokens_details": {"reasoning_tokens": 2}}}).encode()
    assert parse_response(Api.OPENAI_CHAT, chat, stream=False).tokens == Tokens(
        input=9, output=4, cached=3, reasoning=2)
    assert api_of("POST", "/v1/messages?beta=true") is Api.ANTHROPIC_MESSAGES
    assert api_of("POST", "/v1/messages/count_tokens") is Api.OTHER
    assert api_of("GET", "/v1/models") is Api.OTHER
    assert [status_kind(s) for s in (200, 401, 404, 429, 529, None)] == [
        None, "auth_error", "bad_request", "rate_limited", "api_error", "upstream_unreachable"]


def test_prices_come_from_litellm_with_overrides_first(tmp_path: Path) -> None:
    table = PriceTable.load(None)
    if not table.base:
        pytest.skip("litellm is not installed (the harness packages install it)")
    assert table.price("claude-sonnet-4-5") is not None
    assert table.price("anthropic/claude-sonnet-4-5") == table.price("claude-sonnet-4-5")
    assert table.price("no-such-model") is None
    assert table.cost("no-such-model", Tokens(input=5)) is None
    override = tmp_path / "prices.json"
    override.write_text(json.dumps({"claude-sonnet-4-5": {
        "input_cost_per_token": 1.0, "output_cost_per_token": 2.0}}))
    mine = PriceTable.load(override)
    # 2 fresh input tokens, 1 cached (at the input price: no cache price given), 1 output.
    assert mine.cost("claude-sonnet-4-5", Tokens(input=3, output=1, cached=1)) == 5.0


def test_a_bad_override_file_names_the_file_and_the_fix(tmp_path: Path) -> None:
    bad = tmp_path / "prices.json"
    bad.write_text(json.dumps({"m": {"input_cost_per_token": 1.0}}))
    with pytest.raises(RefigError) as info:
        load_overrides(bad)
    assert info.value.path == bad and "output_cost_per_token" in (info.value.fix or "")


def test_an_unpriced_model_makes_the_total_unknown_not_zero() -> None:
    path, body = BODIES[Api.OPENAI_CHAT]
    with ScriptedServer() as upstream, Gateway(Upstream(upstream.url),
                                               prices=PriceTable({}, base={})) as gateway:
        post(gateway.url + path, body)
    summary = summarize(gateway.calls)
    assert summary.cost_usd is None and summary.unpriced == ("m",)
