"""``--budget`` reserves each call's cost before it starts, and refuses a judge of unknown price.

Real litellm calls to the judge stand-in on 127.0.0.1 (1000 prompt + 200 answer tokens a call).
"""

from __future__ import annotations

import pytest
from refig.cli import run as refig
from refig.judging import SelectedJudge, judge_artifacts
from refig.models import Judgment, JudgmentStatus, SuiteManifest
from refig.rubric import load_rubric
from refig.store import RunStore
from refig_judge_rubric.judge import build_judge
from refig_toolkit_testing.judge_server import JudgeStandIn, sample_artifacts

#: Prices that make one stand-in call cost exactly $0.001.
PRICES = {"input_cost_per_token": "6e-7", "output_cost_per_token": "2e-6"}
CALL = 0.001


def judge_at(url: str, **options: str):
    return build_judge("litellm:openai/judge-x", {"api_base": url, **options},
                       {"model": "openai/judge-x"})


@pytest.mark.parametrize(("budget", "calls"), [(CALL, 1), (3.5 * CALL, 3)])
def test_parallel_slots_never_start_calls_the_budget_cannot_cover(tmp_path, budget, calls):
    artifacts = sample_artifacts(tmp_path / "art", 8)
    store = RunStore.create(tmp_path / "run")
    with JudgeStandIn(latency=0.2) as server:
        judge = judge_at(server.url, **PRICES)
        summary = judge_artifacts(store, artifacts, [SelectedJudge(judge.label, judge)],
                                  repeats=2, jobs=8, budget=budget, quiet=True,
                                  rubric=load_rubric(family="figure-to-slide"))
    assert server.calls == calls  # not one per --judge-jobs slot
    assert summary.cost_usd == pytest.approx(calls * CALL) and summary.cost_usd <= budget
    stored = store.query(Judgment)
    assert sum(j.status is JudgmentStatus.OK for j in stored) == calls
    assert summary.skipped_budget == 16 - calls


def test_a_budget_for_a_model_of_unknown_price_is_a_usage_error(tmp_path, capsys):
    store = RunStore.create(tmp_path / "run")
    store.set_meta("suite", SuiteManifest(name="none", version="1", family="figure-to-slide",
                                          builder="test").model_dump_json())  # an empty run
    store.close()
    with JudgeStandIn() as server:
        code = refig(["evaluate", str(store.root), "-q", "--judge", "litellm:openai/judge-x",
                      "--judge-opt", f"api_base={server.url}", "--budget", "1"])
        assert server.calls == 0
    err = capsys.readouterr().err
    assert code == 2
    assert "--budget cannot count the calls of litellm:openai/judge-x" in err
    assert "input_cost_per_token" in err
    # with a price given, the same budget is accepted
    with JudgeStandIn() as server:
        code = refig(["evaluate", str(store.root), "-q", "--judge", "litellm:openai/judge-x",
                      "--judge-opt", f"api_base={server.url}", "--budget", "1",
                      *[f"--judge-opt={k}={v}" for k, v in PRICES.items()]])
    assert code == 0, capsys.readouterr().err
