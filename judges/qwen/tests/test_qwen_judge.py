"""The Qwen judge against a real OpenAI-compatible server on 127.0.0.1 (as vLLM would serve it)."""

from __future__ import annotations

import pytest
from refig.errors import UsageError
from refig.models import JudgmentStatus
from refig.plugins import Registry
from refig.rubric import load_rubric
from refig_judge_qwen.qwen import API_BASE_ENV, DEFAULT_MODEL
from refig_toolkit_testing import judge_request
from refig_toolkit_testing.judge_server import JudgeStandIn, images_in, sample_artifacts


@pytest.fixture
def registry():
    return Registry.load(warn=lambda line: None)


@pytest.fixture
def artifact(tmp_path):
    return sample_artifacts(tmp_path, 1)[0]


def test_qwen_disables_thinking_and_constrains_the_answer(registry, artifact, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with JudgeStandIn() as server:
        monkeypatch.setenv(API_BASE_ENV, server.url)
        judge = registry.resolve("judge", "qwen").create()
        result = judge.judge(judge_request(artifact, "objects: 3 shown", 0))
    assert result.status is JudgmentStatus.OK and result.total == 69
    (body,) = server.bodies
    assert body["model"] == DEFAULT_MODEL == "Qwen/Qwen3.6-27B"
    assert body["chat_template_kwargs"] == {"enable_thinking": False}
    assert body["response_format"] == load_rubric(family="figure-to-slide").response_format()
    assert (body["temperature"], body["top_p"]) == (0.7, 0.8)
    assert len(images_in(body)) == 2
    assert judge.label == "qwen" and result.judge == "qwen"


def test_another_model_and_server_by_option(registry, artifact, monkeypatch):
    monkeypatch.delenv(API_BASE_ENV, raising=False)
    with JudgeStandIn() as server:
        judge = registry.resolve("judge", "qwen:Qwen/Qwen3-VL-8B-Instruct").create(
            api_base=server.url, temperature="0")
        judge.judge(judge_request(artifact, "", 0))
        default = registry.resolve("judge", "qwen").create(api_base=server.url)
    assert server.bodies[0]["model"] == "Qwen/Qwen3-VL-8B-Instruct"
    assert server.bodies[0]["temperature"] == 0
    assert judge.label == "qwen:Qwen/Qwen3-VL-8B-Instruct[temperature=0.0]"
    assert default.key != judge.key


def test_without_a_server_the_error_says_how_to_serve_one(registry, monkeypatch):
    monkeypatch.delenv(API_BASE_ENV, raising=False)
    with pytest.raises(UsageError, match="OpenAI-compatible server") as caught:
        registry.resolve("judge", "qwen").create()
    assert API_BASE_ENV in caught.value.fix and "vllm serve Qwen/Qwen3.6-27B" in caught.value.fix
