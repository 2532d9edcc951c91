"""The judging stage: every evaluated artifact x judge x repeat, cached, throttled, within budget.

A judgment is stored under (artifact, judge_key, rubric_sha256, inputs_sha256, repeat), where
``judge_key`` hashes the judge's own key (its name and parameters) with its plugin's
distribution and version, and ``inputs_sha256`` hashes the
rendering and the source it saw. A second run of the same evaluation therefore makes no model
call; a new rubric, a new judge or a new rendering judges only what is new. Failed judgments are
stored with a typed error and also count as done (``retry_failed`` judges them again), except
those that say the judge could not run at all (:data:`NOT_CACHED`: the budget, a key, a model
name, a server that never answered), which the next run picks up.

Each judge gets its own workers and :class:`~refig.traffic.AdaptiveLimiter`. A judge makes one
judging per call of ``judge()`` (an LLM judge may retry a malformed answer inside it); failures
it marks ``retryable`` (429, 5xx, timeouts, lost connections) are retried here with backoff,
honouring ``Retry-After``. The stage then checks the scores against the rubric (whatever judge
made them) and applies the flattening cap.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Sequence

from refig.claims import Claims
from refig.console import err, track
from refig.engine.plugins import family_for
from refig.errors import RefigError, UsageError
from refig.judging.accounting import Budget, JudgeLedger, JudgingSummary, check_budget
from refig.judging.selection import SelectedJudge, is_deterministic
from refig.judging.workers import BUDGET, Job, JudgeRun, JudgmentKey
from refig.metric_values import source_sha256
from refig.models import Judgment, JudgmentStatus, stable_hash
from refig.protocols import Artifact
from refig.rubric import Rubric
from refig.running.redact import Redactor, find_secrets
from refig.store import RunStore, sha256_file

#: Failures that say the judge could not run at all (budget, key, model name, server, plugin):
#: stored for the report, but judged again by the next run, unlike a failure on the artifact.
NOT_CACHED = frozenset({BUDGET, "auth", "not_found", "connection", "judge_error"})


def inputs_key(render_sha256: str | None, source_sha256: str | None) -> str:
    """What a judge is shown besides the slide and the rubric: its rendering and the source."""
    return stable_hash({"render": render_sha256, "source": source_sha256})


def judge_artifacts(
    store: RunStore,
    artifacts: Iterable[Artifact],
    judges: Sequence[SelectedJudge],
    *,
    rubric: Rubric,
    repeats: int = 1,
    jobs: int = 8,
    budget: float | None = None,
    retry_failed: bool = False,
    quiet: bool = False,
) -> JudgingSummary:
    """Judge every artifact that passed the gate with every judge ``repeats`` times; store all.

    Returns the per-judge ledger. ``jobs`` bounds each judge's concurrent calls (the adaptive
    limit starts there and never exceeds it); ``budget`` (USD, across judges) stops new calls
    once spent; ``retry_failed`` judges stored failures again.
    """
    if repeats < 1:
        raise UsageError(f"--repeats must be at least 1, not {repeats}")
    if budget is not None and budget < 0:
        raise UsageError(f"--budget must be zero or more dollars, not {budget}")
    check_budget(judges, budget)
    began = time.monotonic()
    summary = JudgingSummary(rubric.sha256, rubric.version, repeats, [], budget_usd=budget)
    done: dict[JudgmentKey, Judgment] = {
        (j.artifact_sha256, j.judge_key, j.rubric_sha256, j.inputs_sha256, j.repeat): j
        for j in store.iter(Judgment, rubric_sha256=rubric.sha256)
    }

    def cached(key: JudgmentKey) -> bool:
        found = done.get(key)
        if found is None:
            return False
        if found.status is JudgmentStatus.OK:
            return True
        return not retry_failed and not (found.error is not None
                                         and found.error.kind in NOT_CACHED)

    plans: list[tuple[SelectedJudge, JudgeLedger, list[Job]]] = [
        (selected, JudgeLedger(selected.label), []) for selected in judges
    ]
    planned: set[JudgmentKey] = set()
    for artifact in artifacts:
        if not artifact.gate.passed:
            summary.not_judged_gate += 1
            continue
        render_sha = (
            sha256_file(artifact.render)
            if artifact.render is not None and artifact.render.is_file()
            else None
        )
        inputs = inputs_key(render_sha, source_sha256(artifact))
        evidence = family_for(artifact.family).evidence(artifact)
        for selected, ledger, todo in plans:
            judge_key = selected.key
            # The same inputs always give a deterministic judge the same scores: one repeat.
            made = 1 if is_deterministic(selected.judge) else repeats
            ledger.collapsed_repeats += repeats - made
            for repeat in range(made):
                key = (artifact.sha256, judge_key, rubric.sha256, inputs, repeat)
                if key in planned:  # the same slide and source under two tasks: judged once
                    continue
                planned.add(key)
                if cached(key):
                    ledger.cached += 1
                else:
                    stored = done.get(key)
                    todo.append(Job(key, artifact, evidence, repeat, judge_key, inputs, seen=(
                        stored.created_at.isoformat() if stored is not None else None)))

    total = sum(len(todo) for _, _, todo in plans)
    budget_state = Budget(budget)
    redactor = Redactor({**find_secrets(),
                         **{k: v for selected in judges for k, v in selected.secrets.items()}})
    stop = threading.Event()
    with Claims(store) as claims, track("judging", total, quiet=quiet) as tracker:
        runs = [
            JudgeRun(selected, todo, store=store, rubric=rubric, workers=jobs,
                      budget=budget_state, ledger=ledger, tracker=tracker, stop=stop,
                      redactor=redactor, claims=claims)
            for selected, ledger, todo in plans
        ]
        threads = [thread for run in runs for thread in run.threads()]
        for thread in threads:
            thread.start()
        try:
            for thread in threads:
                while thread.is_alive():
                    thread.join(timeout=0.5)
        except KeyboardInterrupt:
            stop.set()
            for thread in threads:
                thread.join()
            raise
    for judge_run in runs:
        if judge_run.errors:
            exc = judge_run.errors[0]
            raise RefigError(
                f"could not store a judgment, so judging stopped: {type(exc).__name__}: {exc}",
                path=store.db_path,
                fix="make room on the disk (or fix the run's permissions) and run the same "
                "command again: judgments already stored are kept and not made twice",
            ) from exc
    summary.ledgers = [ledger for _, ledger, _ in plans]
    summary.seconds = time.monotonic() - began
    if not quiet:
        for line in summary.lines():
            err.print(line, markup=False, highlight=False)
    unpriced = [led.label for led in summary.ledgers if led.unpriced_calls]
    if budget is not None and unpriced:  # shown under -q and --json too: the budget was blind
        err.print(
            f"warning: the price of {', '.join(unpriced)} is unknown, so --budget did not "
            "count those calls; set --judge-opt input_cost_per_token=... and "
            "output_cost_per_token=...",
            markup=False,
        )
    return summary
