"""The ``model`` harness against a real HTTP stand-in on 127.0.0.1 (the scripted model server):
the answer's code becomes the program, the attempt's tokens and cost equal the server's own log,
and a rate limit, a malformed body or an answer without code end in typed failures."""

from __future__ import annotations

import base64
import json
import time
from pathlib import Path

import pytest
from refig.errors import UsageError
from refig.models import Asset, Task
from refig.protocols import AttemptContext, HarnessResult, Prompt
from refig.running.workspace import AttemptDirs, attempt_env
from refig_harness_model.answer import NoCode, extract_code
from refig_harness_model.harness import ModelHarness
from refig_toolkit_agent.gateway import read_calls
from refig_toolkit_testing.scripted import Fault, ScriptedServer, Served
from refig_toolkit_testing.selfcheck import draw_source, served_cost

PROGRAM = ("import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n"
           "fig = plt.figure(figsize=(6.4, 4.8), dpi=100)\nplt.plot([1, 2, 3])\n"
           "fig.savefig('figure.png')\n")
ANSWER = f"Here is the code.\n\n```bash\npip install matplotlib\n```\n\n```python\n{PROGRAM}```\n"
PRICE = {"input_cost_per_token": 3e-6, "output_cost_per_token": 1.5e-5,
         "cache_read_input_token_cost": 3e-7, "cache_creation_input_token_cost": 3.75e-6}
PROMPT = Prompt("You are an expert Python developer. Return only the code.", version="answer.v1")


def attempt(tmp_path: Path, server: ScriptedServer, model: str, mount: str,
            prompt: Prompt = PROMPT, timeout: float = 120,
            **options: str) -> tuple[HarnessResult, AttemptDirs]:
    dirs = AttemptDirs.create(tmp_path, "attempt")
    source = draw_source(dirs.workspace / "source.png")
    task = Task(id="fig", family="figure-to-code",
                inputs={"figure": Asset(path="source.png", sha256="0" * 64)},
                params={"language": "python", "width": 640, "height": 480})
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({model.split("/", 1)[1]: PRICE}))
    ctx = AttemptContext(
        task=task, workspace=dirs.workspace, source=source, prompt=prompt, model=model,
        deadline=time.monotonic() + timeout, env=attempt_env(dirs, "attempt"),
        options={"upstream": server.url + mount, "prices": str(prices), **options},
        log=dirs.log, attempt_id="attempt", home=dirs.home, outputs_dir=dirs.outputs,
    )
    return ModelHarness().run(ctx), dirs


def assert_recorded_as_served(result: HarnessResult, served: list[Served]) -> None:
    assert result.turns == sum(s.completed for s in served)
    for field in ("input_tokens", "output_tokens", "cached_tokens", "reasoning_tokens"):
        assert getattr(result.usage, field) == sum(getattr(s, field) for s in served), field
    calls = read_calls(result.outputs["calls"])
    assert [(c.ok, c.input_tokens, c.output_tokens, c.cache_write_tokens) for c in calls] == [
        (s.completed, s.input_tokens, s.output_tokens, s.cache_write_tokens) for s in served]


@pytest.mark.parametrize(("model", "mount"), [("openai/coder-1", "/v1"),
                                              ("anthropic/claude-sonnet-4-5", "")])
def test_the_answer_s_code_is_the_program_and_the_accounting_is_the_server_s(
        tmp_path: Path, model: str, mount: str) -> None:
    with ScriptedServer(answer=ANSWER) as server:
        result, dirs = attempt(tmp_path, server, model, mount)
        served, requests = list(server.served), [r.json() for r in server.requests]
    assert result.error is None and result.exit_code == 0
    assert result.outputs.get("program") == dirs.workspace / "figure.py"
    assert result.outputs["program"].read_text() == PROGRAM
    assert len(served) == 1 and served[0].tools == "none"
    assert_recorded_as_served(result, served)
    assert result.cost_usd == pytest.approx(served_cost(
        served, input=3e-6, output=1.5e-5, cache_read=3e-7, cache_write=3.75e-6))
    assert result.cost_usd > 0
    body = json.dumps(requests[0])
    figure = base64.b64encode((dirs.workspace / "source.png").read_bytes()).decode()
    assert PROMPT.text in body and figure in body  # the figure itself, whatever the wire format
    assert "sk-refig-gateway-dummy-key" not in json.dumps(server.requests[0].headers)
    transcript = json.loads(result.outputs["transcript"].read_text())
    assert transcript["content"] == ANSWER


def test_a_429_is_retried_after_its_retry_after_and_then_answered(tmp_path: Path) -> None:
    with ScriptedServer(answer=ANSWER, faults=[Fault("429", frozenset({0}))],
                        retry_after=0.05) as server:
        result, _ = attempt(tmp_path, server, "openai/coder-1", "/v1", max_retries="1")
        served = list(server.served)
    assert result.error is None and "program" in result.outputs
    assert [s.status for s in served] == [429, 200]
    assert_recorded_as_served(result, served)
    first = read_calls(result.outputs["calls"])[0]
    assert first.error == "rate_limited" and first.retry_after == pytest.approx(0.05)


def test_a_429_that_persists_ends_typed_with_the_server_s_retry_after(tmp_path: Path) -> None:
    with ScriptedServer(answer=ANSWER, faults=[Fault("429")], retry_after=30) as server:
        result, dirs = attempt(tmp_path, server, "openai/coder-1", "/v1", max_retries="0")
        served = list(server.served)
    assert result.error is not None and result.error.kind == "rate_limited"
    assert result.error.retryable and result.error.retry_after == 30
    assert "program" not in result.outputs and not (dirs.workspace / "figure.py").exists()
    assert result.turns == 0 and len(served) == 1
    assert_recorded_as_served(result, served)


@pytest.mark.parametrize(("fault", "kind"), [("malformed", "malformed_response"),
                                             ("400", "bad_request"), ("500", "api_error")])
def test_a_broken_reply_ends_typed(tmp_path: Path, fault: str, kind: str) -> None:
    with ScriptedServer(answer=ANSWER, faults=[Fault(fault)]) as server:
        result, _ = attempt(tmp_path, server, "openai/coder-1", "/v1", max_retries="0")
        served = list(server.served)
    assert result.error is not None and result.error.kind == kind
    assert "program" not in result.outputs and result.turns == 0
    assert_recorded_as_served(result, served)


def test_a_model_that_never_answers_ends_typed_at_the_deadline(tmp_path: Path) -> None:
    with ScriptedServer(answer=ANSWER, faults=[Fault("hang")]) as server:
        result, _ = attempt(tmp_path, server, "openai/coder-1", "/v1", timeout=3)
    assert result.error is not None and result.error.kind == "timeout", result.error
    assert "program" not in result.outputs and result.turns == 0
    [call] = read_calls(result.outputs["calls"])
    assert not call.ok


@pytest.mark.parametrize("answer", ["", "   \n", "```python\n```"])
def test_an_answer_without_code_ends_typed_and_is_still_accounted(
        tmp_path: Path, answer: str) -> None:
    with ScriptedServer(answer=answer) as server:
        result, dirs = attempt(tmp_path, server, "openai/coder-1", "/v1")
        served = list(server.served)
    assert result.error is not None and result.error.kind == "no_code"
    assert "program" not in result.outputs and not (dirs.workspace / "figure.py").exists()
    assert result.turns == 1 and result.cost_usd is not None and result.cost_usd > 0
    assert_recorded_as_served(result, served)


def test_an_agent_workflow_s_prompt_is_refused_before_any_call(tmp_path: Path) -> None:
    with ScriptedServer(answer=ANSWER) as server:
        result, _ = attempt(tmp_path, server, "openai/coder-1", "/v1",
                            prompt=Prompt("write figure.py", version="direct.v1"))
        assert server.served == []
    assert result.error is not None and result.error.kind == "setup_error"
    assert "--workflow answer" in result.error.message


def test_an_unknown_option_is_a_usage_error_naming_the_accepted_keys() -> None:
    with pytest.raises(UsageError, match="max_retries"):
        ModelHarness(max_retrys="3")
    with pytest.raises(UsageError, match="temperature"):
        ModelHarness(temperature="hot")


@pytest.mark.parametrize(("answer", "code"), [
    ("print(1)", "print(1)\n"),
    ("Sure:\n```py\nprint(1)\n```\nThat is all.", "print(1)\n"),
    ("~~~matlab\nplot(1:3)\n~~~", "plot(1:3)\n"),
    ("```r\nplot(1)\n```\n```r\nlibrary(ggplot2)\nggplot()\n```", "library(ggplot2)\nggplot()\n"),
    ("```latex\n\\begin{tikzpicture}\n", "\\begin{tikzpicture}\n"),  # cut at its token limit
])
def test_code_is_the_longest_fenced_block_else_the_whole_answer(answer: str, code: str) -> None:
    assert extract_code(answer) == code


def test_no_code_is_an_error_not_an_empty_program() -> None:
    for answer in (None, "", "```\n\n```"):
        with pytest.raises(NoCode):
            extract_code(answer)
