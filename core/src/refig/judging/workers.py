"""The judging stage's workers: each judge's jobs on its own threads, limiter and retries."""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from refig.claims import Claims
from refig.judging.accounting import Budget, JudgeLedger
from refig.judging.selection import SelectedJudge
from refig.models import ErrorInfo, Judgment, JudgmentStatus, Usage
from refig.protocols import Artifact, Evidence, JudgeRequest
from refig.rubric import AnswerError, Rubric
from refig.running.redact import Redactor
from refig.store import RunStore
from refig.traffic import AdaptiveLimiter

#: (artifact, judge key, rubric hash, inputs hash, repeat): a stored judgment's identity.
JudgmentKey = tuple[str, str, str, str, int]
JUDGMENT_FIELDS = ("artifact_sha256", "judge_key", "rubric_sha256", "inputs_sha256", "repeat")
BUDGET = "budget"
RATE_LIMITED = "rate_limited"
#: Failures after which every other call of the judge would fail the same way: not made.
FATAL = frozenset({"auth", "not_found"})


@dataclass
class Job:
    """One judgment to make, and what its calls have cost so far."""

    key: JudgmentKey
    artifact: Artifact
    evidence: Evidence
    repeat: int
    judge_key: str
    inputs_sha256: str
    attempt: int = 0
    cost: float | None = None
    usage: Usage = field(default_factory=Usage)
    latency: float = 0.0
    calls: int = 0
    started: bool = False
    #: When the judgment stored under the key at planning time was made (None: none was).
    seen: str | None = None


class JobQueue:
    """Jobs ordered by when they may run next; retries wait in it instead of in a thread."""

    def __init__(self, jobs: Sequence[Job], stop: threading.Event):
        self._heap = [(0.0, i, job) for i, job in enumerate(jobs)]
        self._seq = itertools.count(len(jobs))
        self._pending = len(jobs)
        self._stop = stop
        self._cond = threading.Condition()

    def get(self) -> Job | None:
        with self._cond:
            while self._pending and not self._stop.is_set():
                now = time.monotonic()
                if self._heap and self._heap[0][0] <= now:
                    return heapq.heappop(self._heap)[2]
                self._cond.wait(min(0.5, self._heap[0][0] - now) if self._heap else 0.5)
            return None

    def stop(self) -> None:
        with self._cond:
            self._stop.set()
            self._cond.notify_all()

    def later(self, job: Job, delay: float) -> None:
        with self._cond:
            heapq.heappush(self._heap, (time.monotonic() + delay, next(self._seq), job))
            self._cond.notify()

    def done(self) -> None:
        with self._cond:
            self._pending -= 1
            self._cond.notify_all()


def failure(job: Job, kind: str, message: str) -> Judgment:
    return Judgment(
        artifact_sha256=job.artifact.sha256,
        judge="",
        judge_key=job.judge_key,
        inputs_sha256=job.inputs_sha256,
        rubric_sha256="",
        rubric_version="",
        repeat=job.repeat,
        status=JudgmentStatus.FAILED,
        error=ErrorInfo(kind=kind, message=message),
        calls=0,
    )


class JudgeRun:
    """One judge's jobs on ``jobs`` worker threads behind one adaptive limiter."""

    def __init__(self, selected: SelectedJudge, jobs: list[Job], *, store: RunStore,
                 rubric: Rubric, workers: int, budget: Budget, ledger: JudgeLedger,
                 tracker: Any, stop: threading.Event, redactor: Redactor, claims: Claims):
        self.selected = selected
        self.redactor = redactor
        self.claims = claims
        self.jobs = jobs
        self.store = store
        self.rubric = rubric
        self.workers = max(1, min(workers, len(jobs)))
        self.budget = budget
        self.ledger = ledger
        self.tracker = tracker
        self.limiter = AdaptiveLimiter(maximum=max(1, workers))
        self.queue = JobQueue(jobs, stop)
        self.errors: list[BaseException] = []
        self.fatal: ErrorInfo | None = None
        #: The largest cost one call of this judge has had (None until one reports a cost).
        self.largest_call: float | None = None
        self._lock = threading.Lock()

    def threads(self) -> list[threading.Thread]:
        return [
            threading.Thread(target=self._work, name=f"judge-{i}", daemon=True)
            for i in range(self.workers if self.jobs else 0)
        ]

    def _work(self) -> None:
        while (job := self.queue.get()) is not None:
            try:
                self._step(job)
            except BaseException as exc:  # a bug here must not lose the job silently
                self._finish(job, failure(job, "judge_error", f"{type(exc).__name__}: {exc}"))

    def _reserve(self, request: JudgeRequest) -> float | None:
        """A budget reservation for one judging (see :class:`Budget`), or None."""
        if self.budget.limit is None:
            return self.budget.reserve(None, probing=False)
        prompt = self.selected.judge.estimate_usd(request)
        with self._lock:
            largest = self.largest_call
        if largest is None and self.selected.judge.priced() is None:
            return self.budget.reserve(0.0, probing=False)  # a judge that calls no model
        estimate = max(prompt or 0.0, largest or 0.0)
        return self.budget.reserve(estimate, probing=largest is None)

    def _skip_for_budget(self, job: Job) -> None:
        self._finish(job, failure(job, BUDGET, "not judged: the --budget was reached"))

    def _step(self, job: Job) -> None:
        if self.fatal is not None:
            return self._finish(job, failure(job, self.fatal.kind, "not attempted after: "
                                              + self.fatal.message))
        if self.budget.exhausted():
            return self._skip_for_budget(job)
        slot = self.limiter.acquire()
        request = JudgeRequest(job.artifact, job.evidence, job.repeat, self.rubric.path)
        reservation = self._reserve(request)
        if reservation is None:
            self.limiter.release(slot)
            if self.budget.busy():  # a call in flight may cost less than reserved: wait for it
                self.queue.later(job, 0.05)
                return None
            return self._skip_for_budget(job)
        if not job.started:
            if not self._claim(job):
                self.budget.settle(reservation, 0.0)
                self.limiter.release(slot)
                return None
            job.started = True
            self.tracker.start()
        started = time.monotonic()
        try:
            result = self.selected.judge.judge(request)
        except Exception as exc:  # the protocol says never raise; a plugin that does is typed
            result = failure(job, "judge_error", f"{type(exc).__name__}: {exc}")
        error = result.error if result.status is JudgmentStatus.FAILED else None
        if error is not None and error.kind in FATAL:
            self.fatal = error
        rate_limited = error is not None and error.kind == RATE_LIMITED
        self.limiter.release(slot, rate_limited=rate_limited, ok=error is None)
        self.budget.settle(reservation, result.cost_usd)
        if result.cost_usd is not None and result.calls:
            with self._lock:
                self.largest_call = max(self.largest_call or 0.0,
                                        result.cost_usd / result.calls)
        with self._lock:
            self.ledger.calls += result.calls
            self.ledger.rate_limited += rate_limited
            if result.cost_usd is None and result.model is not None:
                self.ledger.unpriced_calls += result.calls
            self.ledger.cost_usd += result.cost_usd or 0.0
            self.ledger.usage += result.usage
        if result.cost_usd is not None:
            job.cost = (job.cost or 0.0) + result.cost_usd
        job.usage += result.usage
        job.calls += result.calls
        job.latency += result.latency_seconds or (time.monotonic() - started)
        policy = self.selected.policy
        if error is not None and error.retryable and job.attempt + 1 < policy.attempts:
            delay = policy.delay(job.attempt, error.retry_after)
            job.attempt += 1
            with self._lock:
                self.ledger.retries += 1
            self.queue.later(job, delay)
            return None
        if error is not None and error.retryable:
            result = result.model_copy(update={"error": error.model_copy(update={
                "message": f"{error.message} (gave up after {job.attempt + 1} calls)"})})
        self._finish(job, result)
        return None

    def _claim(self, job: Job) -> bool:
        """Claim the judgment; False (and the job is over) when another live process holds it
        or has stored it since this run planned it."""
        item = "judgment:" + ":".join(map(str, job.key))
        if self.claims.claim(item):
            found = self.store.get(Judgment, **dict(zip(JUDGMENT_FIELDS, job.key, strict=True)))
            if found is None or found.created_at.isoformat() == job.seen:
                return True
            self.claims.release(item)
        with self._lock:
            self.ledger.elsewhere += 1
        self.tracker.done_elsewhere()
        self.queue.done()
        return False

    def _finish(self, job: Job, result: Judgment) -> None:
        # what a server said (an echoed key in an error or a rationale) is stored masked
        record = self.redactor.record(self._stamp(job, result))
        try:
            self.store.put_over_failed(record)
        except Exception as exc:  # the store failed (disk full...): stop, and say so afterwards
            with self._lock:
                self.errors.append(exc)
            self.queue.stop()
        if job.started:
            self.claims.release("judgment:" + ":".join(map(str, job.key)))
        with self._lock:
            if record.status is JudgmentStatus.OK:
                self.ledger.judged += 1
            elif record.error is not None and record.error.kind == BUDGET:
                self.ledger.skipped_budget += 1
            else:
                self.ledger.judged += 1
                self.ledger.failed[record.error.kind if record.error else "unknown"] += 1
        if not job.started:
            self.tracker.skip()
        else:
            self.tracker.finish(ok=record.status is JudgmentStatus.OK)
        self.queue.done()

    def _stamp(self, job: Job, result: Judgment) -> Judgment:
        """The judgment as stored: its key, accumulated cost, checked scores and the cap."""
        update: dict[str, Any] = {
            "artifact_sha256": job.artifact.sha256,
            "judge": self.selected.label,
            "judge_key": job.judge_key,
            "inputs_sha256": job.inputs_sha256,
            "rubric_sha256": self.rubric.sha256,
            "rubric_version": self.rubric.version,
            "repeat": job.repeat,
            "cost_usd": job.cost,
            "usage": job.usage,
            "latency_seconds": round(job.latency, 3),
            "calls": job.calls,
        }
        if result.status is JudgmentStatus.OK:
            try:
                self.rubric.check(result.scores, result.total)
            except AnswerError as exc:
                update.update(
                    status=JudgmentStatus.FAILED,
                    scores=(),
                    total=None,
                    error=ErrorInfo(kind="invalid_answer", message=f"judge's scores: {exc}"),
                )
            else:
                scored = self.rubric.finish(
                    result.scores, flattened=self.rubric.is_flattened(job.artifact.metrics)
                )
                update.update(
                    scores=scored.scores,
                    total=scored.total,
                    raw_total=scored.raw_total,
                    capped=scored.capped,
                )
        return result.model_copy(update=update)
