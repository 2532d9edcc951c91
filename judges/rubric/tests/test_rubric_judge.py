"""The litellm rubric judge against a real OpenAI-style HTTP server on 127.0.0.1.

The server (``refig_toolkit_testing.judge_server``) reads the schema from each request and answers
on a script: valid scores, invalid JSON, out-of-range scores, wrong totals, 429s with Retry-After,
500s, or answers slower than the client's timeout.
"""

from __future__ import annotations

import base64
import dataclasses
import json

import pytest
from refig.errors import UsageError
from refig.judging import SelectedJudge, judge_artifacts
from refig.models import Judgment, JudgmentStatus
from refig.plugins import Registry
from refig.rubric import load_rubric
from refig.store import RunStore
from refig.traffic import RetryPolicy
from refig_judge_rubric.judge import build_judge
from refig_toolkit_testing import judge_request
from refig_toolkit_testing.judge_server import (
    JudgeStandIn,
    Reply,
    images_in,
    sample_artifacts,
    scripted,
)

PRICES = {"input_cost_per_token": "1e-6", "output_cost_per_token": "2e-6"}
CALL_COST = 1000 * 1e-6 + 200 * 2e-6  # the stand-in reports 1000 prompt + 200 completion tokens
FAST = RetryPolicy(backoff=0.02, max_backoff=0.1)


@pytest.fixture
def artifacts(tmp_path):
    return sample_artifacts(tmp_path / "art", 3, flattened=[2])


@pytest.fixture
def store(tmp_path):
    return RunStore.create(tmp_path / "run")


def judge_for(server, **options):
    return build_judge("litellm:openai/judge-x",
                       {"api_base": server.url, **PRICES, **options}, {"model": "openai/judge-x"})


def run(store, artifacts, judge, policy=FAST, **kwargs):
    return judge_artifacts(store, artifacts, [SelectedJudge(judge.label, judge, policy)],
                           quiet=True, **kwargs, rubric=load_rubric(family="figure-to-slide"))


def one(server, artifacts, **options):
    judge = judge_for(server, **options)
    return judge.judge(judge_request(artifacts[0], "objects: 3 shown", 0))


def test_the_request_carries_both_images_the_audit_and_the_strict_schema(artifacts):
    with JudgeStandIn() as server:
        result = one(server, artifacts, temperature="0", max_tokens="900")
    assert result.status is JudgmentStatus.OK
    (body,) = server.bodies
    assert body["model"] == "judge-x"
    assert body["temperature"] == 0 and body["max_tokens"] == 900
    assert body["response_format"] == load_rubric(family="figure-to-slide").response_format()
    assert body["response_format"]["json_schema"]["strict"] is True
    source, render = images_in(body)
    assert source == "data:image/png;base64," + base64.b64encode(
        artifacts[0].source.read_bytes()).decode()
    assert render.endswith(base64.b64encode(artifacts[0].render.read_bytes()).decode())
    system, user = body["messages"]
    assert "editability (Editability), 0 to 25" in system["content"]
    assert "objects: 3 shown" in user["content"][-1]["text"]


def test_each_judgment_tags_its_calls(store, artifacts):
    with JudgeStandIn() as server:
        run(store, artifacts[:2], judge_for(server), repeats=2)
    tags = sorted(body["user"] for body in server.bodies)
    assert tags == sorted(f"refig-{a.sha256[:16]}-r{r}" for a in artifacts[:2] for r in (0, 1))


def test_a_valid_answer_becomes_a_priced_judgment(artifacts):
    with JudgeStandIn(fraction=0.8) as server:
        result = one(server, artifacts)
    assert [s.score for s in result.scores] == [16, 24, 12, 20, 8]
    assert result.total == 80 and result.model == "openai/judge-x"
    assert result.usage.input_tokens == 1000 and result.usage.output_tokens == 200
    assert result.cost_usd == pytest.approx(CALL_COST)


@pytest.mark.parametrize("bad", [Reply.GARBAGE, Reply.OUT_OF_RANGE, Reply.WRONG_TOTAL])
def test_a_bad_answer_is_retried_with_the_error_quoted(artifacts, bad):
    with JudgeStandIn(script=scripted([bad])) as server:
        result = one(server, artifacts)
    assert result.status is JudgmentStatus.OK and server.calls == 2
    retry = server.bodies[1]["messages"]
    assert retry[-2]["role"] == "assistant"
    assert retry[-1]["role"] == "user" and "Your answer was rejected" in retry[-1]["content"]
    expected = {Reply.GARBAGE: "not valid JSON", Reply.OUT_OF_RANGE: "less than or equal",
                Reply.WRONG_TOTAL: "not the sum"}[bad]
    assert expected in retry[-1]["content"]
    assert result.cost_usd == pytest.approx(2 * CALL_COST)  # both calls are paid for


def test_answers_that_stay_bad_end_as_invalid_answer(artifacts):
    with JudgeStandIn(script=scripted([Reply.GARBAGE] * 3)) as server:
        result = one(server, artifacts, answer_retries="2")
    assert server.calls == 3
    assert result.status is JudgmentStatus.FAILED and result.error.kind == "invalid_answer"
    assert not result.error.retryable and "3 tries" in result.error.message
    assert result.total is None


def test_transport_failures_are_typed_for_the_stage(artifacts):
    with JudgeStandIn(script=scripted([Reply.RATE_LIMITED, Reply.SERVER_ERROR, Reply.SLOW,
                                       Reply.UNAUTHORIZED]),
                      retry_after=2.5, slow_seconds=3) as server:
        limited = one(server, artifacts)
        server_error = one(server, artifacts)
        slow = one(server, artifacts, timeout="0.5")
        unauthorized = one(server, artifacts)
    assert (limited.error.kind, limited.error.retryable, limited.error.retry_after) == (
        "rate_limited", True, 2.5)
    assert (server_error.error.kind, server_error.error.retryable) == ("server_error", True)
    assert (slow.error.kind, slow.error.retryable) == ("timeout", True)
    assert (unauthorized.error.kind, unauthorized.error.retryable) == ("auth", False)
    assert server.calls == 4  # litellm's own retries are off: refig sees every failure


def test_the_stage_honours_retry_after_and_retries_5xx(store, artifacts):
    with JudgeStandIn(script=scripted([Reply.RATE_LIMITED, Reply.SERVER_ERROR,
                                       Reply.SERVER_ERROR]), retry_after=0.6) as server:
        summary = run(store, artifacts[:1], judge_for(server), jobs=1)
    (stored,) = store.query(Judgment)
    assert stored.status is JudgmentStatus.OK and server.calls == 4
    assert server.times[1] - server.times[0] >= 0.55  # the 429 asked for 0.6 s (retry-after-ms)
    assert summary.ledgers[0].retries == 3 and summary.ledgers[0].rate_limited == 1
    assert stored.cost_usd == pytest.approx(CALL_COST)  # only the answered call cost money


def test_a_timeout_that_lasts_is_stored_typed(store, artifacts):
    with JudgeStandIn(script=lambda body, index: Reply.SLOW, slow_seconds=1.5) as server:
        judge = judge_for(server, timeout="0.3")
        run(store, artifacts[:1], judge, RetryPolicy(attempts=2, backoff=0.01))
    (stored,) = store.query(Judgment)
    assert stored.status is JudgmentStatus.FAILED and stored.error.kind == "timeout"
    assert "gave up after 2 calls" in stored.error.message
    assert server.calls == 2


def test_repeats_cache_cap_and_budget_end_to_end(store, artifacts):
    with JudgeStandIn() as server:
        judge = judge_for(server)
        summary = run(store, artifacts, judge, repeats=3, jobs=4)
        assert server.calls == 9 and summary.failed == 0
        stored = store.query(Judgment)
        assert sorted(j.repeat for j in stored) == [0, 0, 0, 1, 1, 1, 2, 2, 2]
        flat = [j for j in stored if j.artifact_sha256 == artifacts[2].sha256]
        assert all(j.capped and j.total == 25 and j.raw_total == 69 for j in flat)
        assert summary.cost_usd == pytest.approx(9 * CALL_COST)
        again = run(store, artifacts, judge_for(server), repeats=3)
        assert server.calls == 9 and again.ledgers[0].cached == 9
        # Another address for the same model is the same judge: still nothing to do.
        assert judge_for(server, api_base=server.url + "/").key == judge.key


def test_the_budget_stops_scheduling(store, tmp_path):
    many = sample_artifacts(tmp_path / "many", 8)
    with JudgeStandIn() as server:
        summary = run(store, many, judge_for(server), jobs=1, budget=2.5 * CALL_COST)
    assert server.calls == 2 and summary.skipped_budget == 6  # a third would pass the budget
    assert sum(j.status is JudgmentStatus.OK for j in store.query(Judgment)) == 2


def test_labels_and_keys_follow_the_options_that_change_answers(artifacts):
    with JudgeStandIn() as server:
        base = judge_for(server)
        warm = judge_for(server, temperature="0.5")
        slow = judge_for(server, timeout="99", answer_retries="5")
    assert base.label == "litellm:openai/judge-x"
    assert warm.label == "litellm:openai/judge-x[temperature=0.5]" and warm.key != base.key
    assert slow.label == base.label and slow.key == base.key


def test_registry_builds_both_judges(monkeypatch):
    registry = Registry.load(warn=lambda line: None)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    gpt = registry.resolve("judge", "gpt-5.4").create()
    assert gpt.options.model == "gpt-5.4-2026-03-05" and gpt.options.reasoning_effort == "low"
    assert gpt.label == "gpt-5.4"
    assert gpt.client.params()["num_retries"] == 0 and gpt.client.params()["max_retries"] == 0
    any_model = registry.resolve("judge", "litellm:anthropic/claude-x").create(api_key="k")
    assert any_model.options.model == "anthropic/claude-x"
    with pytest.raises(UsageError, match="needs a model"):
        registry.resolve("judge", "litellm").create()


def test_a_missing_key_names_the_variable(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    registry = Registry.load(warn=lambda line: None)
    with pytest.raises(UsageError, match="OPENAI_API_KEY") as caught:
        registry.resolve("judge", "gpt-5.4").create()
    assert "--judge-opt api_key" in caught.value.fix


def test_bad_options_are_usage_errors():
    with pytest.raises(UsageError, match="temperatur") as caught:
        build_judge("litellm:x", {"temperatur": "1", "api_base": "http://h"}, {"model": "x"})
    assert "temperature" in caught.value.fix
    with pytest.raises(UsageError, match="max_tokens"):
        build_judge("litellm:x", {"max_tokens": "many", "api_base": "http://h"}, {"model": "x"})
    with pytest.raises(UsageError, match="extra_body"):
        build_judge("litellm:x", {"extra_body": "{no", "api_base": "http://h"}, {"model": "x"})


def test_a_missing_rendering_fails_typed_without_a_call(artifacts):
    missing = dataclasses.replace(artifacts[0], pages=())
    with JudgeStandIn() as server:
        result = build_judge("litellm:openai/judge-x", {"api_base": server.url},
                             {"model": "openai/judge-x"}).judge(
            judge_request(missing, "", 0))
    assert result.error.kind == "missing_input" and server.calls == 0
    assert json.loads(result.model_dump_json())["status"] == "failed"


def test_its_environment_names_the_model_prices_and_prompt_never_the_key():
    judge = build_judge("litellm:openai/judge-x",
                        {"api_base": "http://127.0.0.1:9", "api_key": "sk-secret-value",
                         "temperature": "0.5", **PRICES}, {"model": "openai/judge-x"})
    found = judge.environment()
    assert found["model"] == "openai/judge-x" and found["temperature"] == "0.5"
    assert found["key"] == judge.key
    assert (found["input_usd_per_token"], found["output_usd_per_token"]) == ("1e-06", "2e-06")
    assert len(found["prompt_sha256"]) == 64 and found["litellm"]
    assert "sk-secret-value" not in json.dumps(found)
