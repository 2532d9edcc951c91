"""The judging stage: cache, repeats, retries, typed failures, budget, cap, judge selection.

The judges here are small in-process implementations of the Judge protocol (the LLM judges are
tested against a real HTTP server in their own packages).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest
from refig.errors import RefigError, UsageError
from refig.judging import (
    SelectedJudge,
    judge_artifacts,
    parse_judge_options,
    select_judges,
)
from refig.models import AxisScore, ErrorInfo, GateReason, GateResult, Judgment, JudgmentStatus
from refig.plugins import Registry
from refig.protocols import Judge, JudgeRequest
from refig.rubric import load_rubric
from refig.store import RunStore
from refig.traffic import RetryPolicy
from refig_toolkit_testing.judge_server import sample_artifacts

FAST = RetryPolicy(backoff=0.01, max_backoff=0.05)
Behaviour = Callable[[JudgeRequest, int], Judgment | None]


class CountingJudge(Judge):
    """Answers half marks on every axis, unless ``behaviour`` returns something else."""

    def __init__(self, key: str = "counting", behaviour: Behaviour | None = None,
                 cost: float | None = 0.01):
        self.key = key
        self.behaviour = behaviour
        self.cost = cost
        self.calls: list[tuple[str, int, float]] = []
        self._lock = threading.Lock()

    def judge(self, request: JudgeRequest) -> Judgment:
        with self._lock:
            index = len(self.calls)
            self.calls.append((request.artifact.sha256, request.repeat, time.monotonic()))
        rubric = load_rubric(request.rubric_path, family=request.artifact.family)
        special = self.behaviour(request, index) if self.behaviour else None
        if special is not None:
            return special
        scores = tuple(AxisScore(axis=a.id, score=a.max // 2, max_score=a.max, rationale="ok")
                       for a in rubric.axes)
        return Judgment(artifact_sha256=request.artifact.sha256, judge="counting",
                        judge_key=self.key, rubric_sha256=rubric.sha256,
                        rubric_version=rubric.version, repeat=request.repeat,
                        status=JudgmentStatus.OK, scores=scores,
                        total=sum(s.score for s in scores), cost_usd=self.cost, model="m")


def failed(request: JudgeRequest, kind: str, retryable: bool = False,
           retry_after: float | None = None) -> Judgment:
    return Judgment(artifact_sha256=request.artifact.sha256, judge="counting", judge_key="k",
                    rubric_sha256="", rubric_version="", repeat=request.repeat,
                    status=JudgmentStatus.FAILED, cost_usd=0.0, model="m",
                    error=ErrorInfo(kind=kind, message=kind, retryable=retryable,
                                    retry_after=retry_after))


@pytest.fixture
def store(tmp_path):
    return RunStore.create(tmp_path / "run")


@pytest.fixture
def artifacts(tmp_path):
    return sample_artifacts(tmp_path / "art", 3, flattened=[2])


def run(store, artifacts, *judges, **kwargs):
    selected = [SelectedJudge(f"j{i}", judge, FAST) for i, judge in enumerate(judges)]
    kwargs.setdefault("rubric", load_rubric(family="figure-to-slide"))
    return judge_artifacts(store, artifacts, selected, quiet=True, **kwargs)


def test_repeats_are_stored_and_a_second_run_makes_no_call(store, artifacts):
    judge = CountingJudge()
    summary = run(store, artifacts, judge, repeats=3)
    assert len(judge.calls) == 9 and summary.ledgers[0].judged == 9
    stored = store.query(Judgment)
    assert sorted((j.artifact_sha256, j.repeat) for j in stored) == sorted(
        (a.sha256, r) for a in artifacts for r in range(3))
    assert {j.rubric_sha256 for j in stored} == {load_rubric(family="figure-to-slide").sha256}
    again = run(store, artifacts, judge, repeats=3)
    assert len(judge.calls) == 9
    assert again.calls == 0 and again.ledgers[0].cached == 9
    more = run(store, artifacts, judge, repeats=4)  # one more repeat: only repeat 3 is new
    assert len(judge.calls) == 12 and more.ledgers[0].cached == 9


def test_a_new_judge_or_rubric_judges_only_what_is_new(store, artifacts, tmp_path):
    first, second = CountingJudge("first"), CountingJudge("second")
    run(store, artifacts, first)
    run(store, artifacts, first, second)
    assert (len(first.calls), len(second.calls)) == (3, 3)
    text = load_rubric(family="figure-to-slide").path.read_text()
    other = tmp_path / "other.toml"
    other.write_text(text.replace('version = "1"', 'version = "1b"'))
    run(store, artifacts, first, rubric=load_rubric(other))
    assert len(first.calls) == 6
    assert {j.rubric_version for j in store.query(Judgment)} == {"1", "1b"}


def test_a_new_rendering_is_judged_again(store, artifacts):
    judge = CountingJudge()
    run(store, artifacts, judge)
    artifacts[0].render.write_bytes(artifacts[1].render.read_bytes())
    run(store, artifacts, judge)
    assert len(judge.calls) == 4


def test_the_cap_is_applied_to_flattened_artifacts(store, artifacts):
    run(store, artifacts, CountingJudge())
    by_artifact = {j.artifact_sha256: j for j in store.query(Judgment)}
    plain, flat = by_artifact[artifacts[0].sha256], by_artifact[artifacts[2].sha256]
    assert (plain.total, plain.capped) == (49, False)
    assert flat.capped and flat.raw_total == 49 and flat.total == 25
    assert next(s for s in flat.scores if s.axis == "editability").score == 0


def test_artifacts_that_failed_the_gate_are_not_judged(store, artifacts):
    broken = artifacts[0].__class__(path=artifacts[0].path, sha256="f" * 64,
                                    gate=GateResult(passed=False, reason=GateReason.NOT_A_ZIP))
    judge = CountingJudge()
    summary = run(store, [*artifacts, broken], judge)
    assert len(judge.calls) == 3 and summary.not_judged_gate == 1
    assert store.query(Judgment, artifact_sha256="f" * 64) == []


def test_a_429_is_retried_after_retry_after(store, artifacts):
    def behaviour(request, index):
        return failed(request, "rate_limited", True, retry_after=0.3) if index == 0 else None

    judge = CountingJudge(behaviour=behaviour)
    summary = run(store, artifacts[:1], judge)
    assert [j.status for j in store.query(Judgment)] == [JudgmentStatus.OK]
    (_, _, refused), (_, _, retried) = judge.calls
    assert retried - refused >= 0.29
    assert summary.ledgers[0].retries == 1 and summary.ledgers[0].rate_limited == 1


def test_every_refused_call_waits_its_retry_after(store, tmp_path):
    many = sample_artifacts(tmp_path / "many", 30)
    capacity, inside, refused = 2, [0], []
    lock, first_refusal = threading.Lock(), threading.Event()

    # A provider that holds two calls at once and refuses the rest with Retry-After. The first
    # calls it accepts wait for a refusal, so there is at least one whatever the scheduling.
    def behaviour(request, index):
        with lock:
            inside[0] += 1
            over = inside[0] > capacity
            if over:
                refused.append(index)
        try:
            if over:
                first_refusal.set()
                return failed(request, "rate_limited", True, retry_after=0.05)
            first_refusal.wait(30)  # the bound only guards a hang
            time.sleep(0.005)
            return None
        finally:
            with lock:
                inside[0] -= 1

    judge = CountingJudge(behaviour=behaviour)
    selected = [SelectedJudge("j", judge, RetryPolicy(attempts=50, backoff=0.01))]
    summary = judge_artifacts(store, many, selected, jobs=6, quiet=True,
                              rubric=load_rubric(family="figure-to-slide"))
    assert {j.status for j in store.query(Judgment)} == {JudgmentStatus.OK}
    assert refused and summary.ledgers[0].rate_limited == len(refused)
    for index in refused:
        artifact, repeat, at = judge.calls[index]
        retried = min(t for a, r, t in judge.calls[index + 1:] if (a, r) == (artifact, repeat))
        assert retried - at >= 0.05  # no sooner than the server said, for every refused call


def test_passing_failures_are_retried_then_stored_typed(store, artifacts):
    judge = CountingJudge(behaviour=lambda r, i: failed(r, "server_error", True))
    selected = [SelectedJudge("j", judge, RetryPolicy(attempts=3, backoff=0.01))]
    summary = judge_artifacts(store, artifacts[:1], selected, quiet=True,
                              rubric=load_rubric(family="figure-to-slide"))
    (stored,) = store.query(Judgment)
    assert len(judge.calls) == 3
    assert stored.status is JudgmentStatus.FAILED and stored.error.kind == "server_error"
    assert "gave up after 3 calls" in stored.error.message
    assert stored.total is None and stored.scores == ()
    assert summary.ledgers[0].failed == {"server_error": 1}


def test_lasting_failures_are_stored_once_and_not_repeated(store, artifacts):
    judge = CountingJudge(behaviour=lambda r, i: failed(r, "invalid_answer") if i < 3 else None)
    run(store, artifacts, judge)
    assert len(judge.calls) == 3
    assert {j.error.kind for j in store.query(Judgment)} == {"invalid_answer"}
    run(store, artifacts, judge)
    assert len(judge.calls) == 3  # failures are results too: no call is repeated
    run(store, artifacts, judge, retry_failed=True)
    assert len(judge.calls) == 6
    assert {j.status for j in store.query(Judgment)} == {JudgmentStatus.OK}


def test_a_judge_that_cannot_run_stops_early_and_is_tried_again_next_run(store, tmp_path):
    many = sample_artifacts(tmp_path / "many", 6)
    judge = CountingJudge(behaviour=lambda r, i: failed(r, "auth") if i == 0 else None)
    summary = run(store, many, judge, jobs=1)
    assert len(judge.calls) == 1  # a bad key fails every call: the others are not made
    assert summary.ledgers[0].failed == {"auth": 6}
    assert {j.error.kind for j in store.query(Judgment)} == {"auth"}
    run(store, many, judge, jobs=1)  # the key is fixed: everything is judged, no flag needed
    assert len(judge.calls) == 7
    assert {j.status for j in store.query(Judgment)} == {JudgmentStatus.OK}


def test_scores_that_break_the_rubric_become_a_typed_failure(store, artifacts):
    def behaviour(request, index):
        good = CountingJudge().judge(request)
        scores = (good.scores[0].model_copy(update={"score": 99.0}), *good.scores[1:])
        return good.model_copy(update={"scores": scores, "total": sum(s.score for s in scores)})

    run(store, artifacts[:1], CountingJudge(behaviour=behaviour))
    (stored,) = store.query(Judgment)
    assert stored.status is JudgmentStatus.FAILED and stored.error.kind == "invalid_answer"
    assert "outside 0..20" in stored.error.message


def test_a_judge_that_raises_is_typed_not_fatal(store, artifacts):
    def behaviour(request, index):
        raise RuntimeError("plugin bug")

    run(store, artifacts[:1], CountingJudge(behaviour=behaviour))
    (stored,) = store.query(Judgment)
    assert stored.error.kind == "judge_error" and "plugin bug" in stored.error.message


def test_the_budget_stops_new_calls_and_keeps_what_is_done(store, tmp_path):
    many = sample_artifacts(tmp_path / "many", 10)
    judge = CountingJudge(cost=0.01)
    summary = run(store, many, judge, budget=0.035, jobs=1)
    # 0.03 spent: a 4th call, reserved at the largest cost seen (0.01), would pass 0.035
    assert len(judge.calls) == 3
    assert summary.skipped_budget == 7 and summary.cost_usd == pytest.approx(0.03)
    assert "7 judgments not made" in "\n".join(summary.lines())
    kinds = [j.error.kind if j.error else "ok" for j in store.query(Judgment)]
    assert kinds.count("ok") == 3 and kinds.count("budget") == 7
    run(store, many, judge)  # without a budget, only the skipped ones are judged
    assert len(judge.calls) == 10
    assert all(j.status is JudgmentStatus.OK for j in store.query(Judgment))


def test_concurrency_is_bounded_by_jobs(store, tmp_path):
    many = sample_artifacts(tmp_path / "many", 12)
    in_flight, peak = [0], [0]
    lock = threading.Lock()
    # The first four calls wait for each other: they can only all pass if four run at once.
    together = threading.Barrier(4, timeout=60)

    def behaviour(request, index):
        with lock:
            in_flight[0] += 1
            peak[0] = max(peak[0], in_flight[0])
        if index < 4:
            together.wait()
        time.sleep(0.02)  # room for a fifth call to start if the bound did not hold
        with lock:
            in_flight[0] -= 1
        return None

    summary = run(store, many, CountingJudge(behaviour=behaviour), jobs=4)
    assert peak[0] == 4 and summary.ledgers[0].judged == 12 and summary.failed == 0


def test_bad_arguments_are_usage_errors(store, artifacts):
    with pytest.raises(UsageError, match="repeats"):
        run(store, artifacts, CountingJudge(), repeats=0)
    with pytest.raises(UsageError, match="budget"):
        run(store, artifacts, CountingJudge(), budget=-1)


def test_judge_options_parse_with_an_optional_scope():
    options = parse_judge_options(["temperature=0", "qwen:api_base=http://h:1/v1",
                                   "litellm:openai/x:max_tokens=5", "extra_body={\"a\": 1}"])
    assert [(o.scope, o.key, o.value) for o in options] == [
        (None, "temperature", "0"), ("qwen", "api_base", "http://h:1/v1"),
        ("litellm:openai/x", "max_tokens", "5"), (None, "extra_body", '{"a": 1}'),
    ]
    with pytest.raises(UsageError, match="KEY=VALUE"):
        parse_judge_options(["temperature"])


JUDGE_PLUGIN = '''
from refig import hookimpl
from refig.protocols import Judge
from refig.records import JudgeRecord


class Echo(Judge):
    def __init__(self, name, argument, options):
        self.key = name + repr(sorted(options.items())) + str(argument)
        self.options = options
        self.argument = argument

    def judge(self, request):
        raise NotImplementedError


@hookimpl
def refig_judges():
    yield JudgeRecord(name="echo", description="d", accepts_argument=True,
                      factory=lambda argument=None, **o: Echo("echo", argument, o))
    yield JudgeRecord(name="other", description="d", factory=lambda **o: Echo("other", None, o))
'''


def test_select_judges_routes_scoped_options(make_dist):
    make_dist("testplug-judges", JUDGE_PLUGIN)
    registry = Registry.load(environ={"REFIG_LOAD_PLUGINS": "testplug-judges"})
    chosen = select_judges(
        registry, ["echo:model-a", "other"],
        ["temperature=0", "echo:model-a:seed=3", "other:attempts=2", "other:backoff=0.5"],
    )
    echo, other = chosen
    assert echo.label == "echo:model-a" and echo.judge.argument == "model-a"
    assert echo.judge.options == {"temperature": "0", "seed": "3"}
    assert other.judge.options == {"temperature": "0"}
    assert other.policy == RetryPolicy(attempts=2, backoff=0.5)
    assert echo.policy == RetryPolicy()
    with pytest.raises(UsageError, match="attempts must be at least 1"):
        select_judges(registry, ["other"], ["attempts=0"])
    with pytest.raises(UsageError, match="backoff must be a number"):
        select_judges(registry, ["other"], ["backoff=soon"])
    with pytest.raises(UsageError, match="not selected: nope"):
        select_judges(registry, ["other"], ["nope:temperature=1"])
    assert len(select_judges(registry, ["other", "other"])) == 1


def test_a_store_that_cannot_write_stops_the_stage_with_its_error(tmp_path, artifacts):
    # A full disk cannot be made here; a store whose writes fail the way SQLite's would stands in.
    import sqlite3

    class FullDisk(RunStore):
        def put(self, record, *, replace=False):
            raise sqlite3.OperationalError("database or disk is full")

        def put_over_failed(self, record):
            return self.put(record)

    full = FullDisk.create(tmp_path / "full")
    with pytest.raises(RefigError, match="disk is full") as caught:
        run(full, artifacts, CountingJudge(), jobs=2)
    assert caught.value.path == full.db_path and "run the same command again" in caught.value.fix
    assert isinstance(caught.value.__cause__, sqlite3.OperationalError)


def test_the_unknown_price_warning_shows_under_quiet(store, artifacts, capsys):
    run(store, artifacts[:1], CountingJudge(cost=None), budget=1.0)
    assert "the price of j0 is unknown" in capsys.readouterr().err
