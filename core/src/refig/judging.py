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

import heapq
import itertools
import threading
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from refig.claims import Claims
from refig.console import err, track
from refig.engine.plugins import family_for
from refig.errors import RefigError, UsageError
from refig.metric_values import source_sha256
from refig.models import ErrorInfo, Judgment, JudgmentStatus, Usage, stable_hash
from refig.plugins import Registry, Selection, distribution_version
from refig.protocols import Artifact, Evidence, Judge, JudgeRequest
from refig.records import PluginKind
from refig.rubric import AnswerError, Rubric, load_rubric
from refig.running.redact import Redactor, find_secrets, option_secrets
from refig.store import RunStore, sha256_file
from refig.traffic import AdaptiveLimiter, RetryPolicy

#: (artifact, judge key, rubric hash, inputs hash, repeat): a stored judgment's identity.
JudgmentKey = tuple[str, str, str, str, int]
JUDGMENT_FIELDS = ("artifact_sha256", "judge_key", "rubric_sha256", "inputs_sha256", "repeat")

#: ``--judge-opt`` keys the stage keeps for itself instead of passing them to the judge: each
#: with its type and least value (RetryPolicy's calls per judgment and first backoff step).
STAGE_OPTIONS: dict[str, tuple[type[int] | type[float], float]] = {
    "attempts": (int, 1),
    "backoff": (float, 0.0),
}
BUDGET = "budget"
RATE_LIMITED = "rate_limited"
#: Failures that say the judge could not run at all (budget, key, model name, server, plugin):
#: stored for the report, but judged again by the next run, unlike a failure on the artifact.
NOT_CACHED = frozenset({BUDGET, "auth", "not_found", "connection", "judge_error"})
#: Failures after which every other call of the judge would fail the same way: not made.
FATAL = frozenset({"auth", "not_found"})


# --- choosing judges ------------------------------------------------------------------------------


@dataclass(frozen=True)
class JudgeOption:
    """One ``--judge-opt [JUDGE:]KEY=VALUE``; ``scope`` limits it to one judge."""

    scope: str | None
    key: str
    value: str


def parse_judge_options(pairs: Iterable[str]) -> list[JudgeOption]:
    """Parse ``KEY=VALUE`` or ``JUDGE:KEY=VALUE`` (``JUDGE`` as in ``--judge``)."""
    options = []
    for pair in pairs:
        head, sep, value = pair.partition("=")
        scope, _, key = head.rpartition(":")
        if not sep or not key.strip():
            raise UsageError(
                f"--judge-opt {pair!r} is not KEY=VALUE",
                fix="write --judge-opt temperature=0 or --judge-opt qwen:api_base=http://...",
            )
        options.append(JudgeOption(scope.strip() or None, key.strip(), value))
    return options


@dataclass(frozen=True)
class SelectedJudge:
    """A judge ready to run: the label stored in ``Judgment.judge``, the judge, its retry policy."""

    label: str
    judge: Judge
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    #: The registry selection it was built from (its record says which families it serves).
    selection: Selection | None = None

    @property
    def key(self) -> str:
        """The cache key of its judgments: the judge's own key and its plugin's version, so a
        new release of a judge's code judges again instead of reusing stale scores."""
        if self.selection is None:
            return self.judge.key
        version = distribution_version(self.selection.distribution)
        return stable_hash({"judge": self.judge.key, "plugin": self.selection.distribution,
                            "version": version})
    #: Credential values among its ``--judge-opt`` (``api_key``): masked in all it stores.
    secrets: Mapping[str, str] = field(default_factory=dict)


def is_deterministic(judge: Judge) -> bool:
    """True for a judge whose scores are a function of its inputs (``deterministic = True``)."""
    return bool(getattr(judge, "deterministic", False))


def select_judges(
    registry: Registry, selectors: Sequence[str], options: Iterable[str] = ()
) -> list[SelectedJudge]:
    """Resolve ``--judge`` selectors and build each judge with the ``--judge-opt`` meant for it."""
    parsed = parse_judge_options(options)
    chosen: list[SelectedJudge] = []
    used: set[str] = set()
    taken: set[str] = set()  # option keys some selected judge reads
    accepting: list[tuple[str, frozenset[str] | None]] = []
    for selector in selectors:
        selection = registry.resolve(PluginKind.JUDGE, selector)
        names = {selector, selection.label, *selection.record.names}
        mine: dict[str, str] = {}
        for option in parsed:
            if option.scope is None or option.scope in names:
                mine[option.key] = option.value
                if option.scope:
                    used.add(option.scope)
        stage = {}
        for key, (cast, least) in STAGE_OPTIONS.items():
            if key in mine:
                try:
                    stage[key] = cast(mine.pop(key))
                except ValueError as exc:
                    raise UsageError(f"--judge-opt {key} must be a number: {exc}") from exc
                if stage[key] < least:
                    raise UsageError(
                        f"--judge-opt {key} must be at least {least:g}, not {stage[key]}"
                    )
        secrets = option_secrets(mine, f"JUDGE_OPT_{selection.label}:")
        judge = selection.create(**mine)
        label = getattr(judge, "label", None) or selection.label
        accepts = accepted_options(judge)
        accepting.append((label, accepts))
        taken |= set(mine) if accepts is None else set(mine) & accepts
        if any(c.judge.key == judge.key for c in chosen):
            continue
        chosen.append(SelectedJudge(label, judge, RetryPolicy(**stage), selection, secrets))
    unknown = {o.scope for o in parsed if o.scope} - used
    if unknown:
        raise UsageError(
            f"--judge-opt names judges that are not selected: {', '.join(sorted(unknown))}",
            fix="prefix an option with a judge given to --judge, e.g. qwen:api_base=URL",
        )
    ignored = sorted({o.key for o in parsed} - taken - set(STAGE_OPTIONS))
    if ignored:
        readers = "; ".join(
            f"{label} accepts " + (", ".join(sorted(keys)) if keys else "no options")
            for label, keys in accepting if keys is not None
        )
        raise UsageError(
            f"--judge-opt {', '.join(ignored)}: no selected judge accepts "
            + ("it" if len(ignored) == 1 else "them"),
            fix=f"{readers}; every judge accepts {', '.join(STAGE_OPTIONS)} (the judging stage)",
        )
    return chosen


def accepted_options(judge: Judge) -> frozenset[str] | None:
    """The ``--judge-opt`` keys a judge reads (its ``accepts``); None: it checks its own."""
    accepts = getattr(judge, "accepts", None)
    return None if accepts is None else frozenset(accepts)


# --- accounting -----------------------------------------------------------------------------------


@dataclass
class JudgeLedger:
    """What one judge did in this run: calls, outcomes, tokens and dollars."""

    label: str
    calls: int = 0
    judged: int = 0
    failed: Counter[str] = field(default_factory=Counter)
    cached: int = 0
    skipped_budget: int = 0
    cost_usd: float = 0.0
    unpriced_calls: int = 0
    usage: Usage = field(default_factory=Usage)
    retries: int = 0
    rate_limited: int = 0
    #: Judgments another live ``refig evaluate`` held or stored while this one ran.
    elsewhere: int = 0
    #: Repeats asked for but not made: a deterministic judge is scored once.
    collapsed_repeats: int = 0

    def line(self) -> str:
        """``gpt-5.4: 120 judged (2 failed: 2 timeout), 30 cached, 140 calls, $1.2345``."""
        failed = sum(self.failed.values())
        text = f"{self.label}: {self.judged} judged"
        if failed:
            kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(self.failed.items()))
            text += f" ({failed} failed: {kinds})"
        text += f", {self.cached} cached, {self.calls} calls"
        if self.retries:
            text += f" ({self.retries} retries, {self.rate_limited} rate-limited)"
        text += f", ${self.cost_usd:.4f}"
        if self.unpriced_calls:
            text += f" (+{self.unpriced_calls} calls of unknown price)"
        if self.skipped_budget:
            text += f", {self.skipped_budget} skipped at the budget"
        if self.elsewhere:
            text += f", {self.elsewhere} made by another process"
        if self.collapsed_repeats:
            text += "; deterministic judge: scored once, repeats collapse to one"
        return text

    def as_json(self) -> dict[str, Any]:
        return {
            "judge": self.label,
            "judged": self.judged,
            "collapsed_repeats": self.collapsed_repeats,
            "failed": dict(self.failed),
            "cached": self.cached,
            "calls": self.calls,
            "retries": self.retries,
            "rate_limited": self.rate_limited,
            "cost_usd": round(self.cost_usd, 6),
            "unpriced_calls": self.unpriced_calls,
            "skipped_budget": self.skipped_budget,
            "elsewhere": self.elsewhere,
            "usage": self.usage.model_dump(),
        }


@dataclass
class JudgingSummary:
    """The outcome of one judging stage, per judge."""

    rubric_sha256: str
    rubric_version: str
    repeats: int
    ledgers: list[JudgeLedger]
    not_judged_gate: int = 0
    budget_usd: float | None = None
    seconds: float = 0.0

    @property
    def cost_usd(self) -> float:
        return sum(ledger.cost_usd for ledger in self.ledgers)

    @property
    def calls(self) -> int:
        return sum(ledger.calls for ledger in self.ledgers)

    @property
    def failed(self) -> int:
        return sum(sum(ledger.failed.values()) for ledger in self.ledgers)

    @property
    def skipped_budget(self) -> int:
        return sum(ledger.skipped_budget for ledger in self.ledgers)

    def lines(self) -> list[str]:
        """A line per judge, then the budget and the artifacts the gate kept from judging."""
        lines = [ledger.line() for ledger in self.ledgers]
        if self.budget_usd is not None:
            lines.append(
                f"budget: ${self.cost_usd:.4f} of ${self.budget_usd:.4f} spent"
                + (f"; {self.skipped_budget} judgments not made (run again with a larger "
                   "--budget to make them)" if self.skipped_budget else "")
            )
        if self.not_judged_gate:
            lines.append(f"{self.not_judged_gate} artifacts not judged: they failed the gate")
        return lines

    def as_json(self) -> dict[str, Any]:
        return {
            "rubric_sha256": self.rubric_sha256,
            "rubric_version": self.rubric_version,
            "repeats": self.repeats,
            "judges": [ledger.as_json() for ledger in self.ledgers],
            "cost_usd": round(self.cost_usd, 6),
            "budget_usd": self.budget_usd,
            "skipped_budget": self.skipped_budget,
            "not_judged_gate": self.not_judged_gate,
            "seconds": round(self.seconds, 3),
        }


class _Budget:
    """Dollars spent and reserved across judges: a call starts only with a reservation.

    A call reserves its estimate before it starts (the larger of the judge's prompt estimate
    and the largest cost one of its calls has had); until a call of a judge has reported a
    cost, that judge runs one call at a time, so parallel slots never overspend an unknown.
    """

    def __init__(self, limit: float | None):
        self.limit = limit
        self.spent = 0.0
        self.reserved = 0.0
        self.in_flight = 0
        self._lock = threading.Lock()

    def reserve(self, estimate: float | None, *, probing: bool) -> float | None:
        """Reserve ``estimate`` dollars; None when the budget cannot cover it now."""
        with self._lock:
            if self.limit is None:
                self.in_flight += 1
                return 0.0
            amount = estimate or 0.0
            if probing and self.in_flight:
                return None
            if self.spent + self.reserved + amount > self.limit or self.spent >= self.limit:
                return None
            self.reserved += amount
            self.in_flight += 1
            return amount

    def settle(self, reservation: float, cost: float | None) -> None:
        """Replace a reservation with what the call cost."""
        with self._lock:
            self.reserved -= reservation
            self.in_flight -= 1
            self.spent += cost or 0.0

    def busy(self) -> bool:
        """Calls are in flight whose settling may free room for the next one."""
        with self._lock:
            return self.in_flight > 0

    def exhausted(self) -> bool:
        return self.limit is not None and self.spent >= self.limit


def check_budget(judges: Sequence[SelectedJudge], budget: float | None) -> None:
    """Refuse ``--budget`` for a judge whose calls have no known price (it could not count)."""
    if budget is None:
        return
    unpriced = [s.label for s in judges if callable(getattr(s.judge, "priced", None))
                and not s.judge.priced()]  # type: ignore[attr-defined]
    if unpriced:
        raise UsageError(
            f"--budget cannot count the calls of {', '.join(unpriced)}: refig knows no price "
            "for its model",
            fix="give the price with --judge-opt input_cost_per_token=... and "
            "--judge-opt output_cost_per_token=..., or drop --budget",
        )


# --- the work -------------------------------------------------------------------------------------


@dataclass
class _Job:
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


class _Queue:
    """Jobs ordered by when they may run next; retries wait in it instead of in a thread."""

    def __init__(self, jobs: Sequence[_Job], stop: threading.Event):
        self._heap = [(0.0, i, job) for i, job in enumerate(jobs)]
        self._seq = itertools.count(len(jobs))
        self._pending = len(jobs)
        self._stop = stop
        self._cond = threading.Condition()

    def get(self) -> _Job | None:
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

    def later(self, job: _Job, delay: float) -> None:
        with self._cond:
            heapq.heappush(self._heap, (time.monotonic() + delay, next(self._seq), job))
            self._cond.notify()

    def done(self) -> None:
        with self._cond:
            self._pending -= 1
            self._cond.notify_all()


def _failure(job: _Job, kind: str, message: str) -> Judgment:
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


class _JudgeRun:
    """One judge's jobs on ``jobs`` worker threads behind one adaptive limiter."""

    def __init__(self, selected: SelectedJudge, jobs: list[_Job], *, store: RunStore,
                 rubric: Rubric, workers: int, budget: _Budget, ledger: JudgeLedger,
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
        self.queue = _Queue(jobs, stop)
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
                self._finish(job, _failure(job, "judge_error", f"{type(exc).__name__}: {exc}"))

    def _reserve(self, request: JudgeRequest) -> float | None:
        """A budget reservation for one judging (see :class:`_Budget`), or None."""
        if self.budget.limit is None:
            return self.budget.reserve(None, probing=False)
        estimate_of = getattr(self.selected.judge, "estimate_usd", None)
        prompt = estimate_of(request) if callable(estimate_of) else None
        with self._lock:
            largest = self.largest_call
        if largest is None and not callable(getattr(self.selected.judge, "priced", None)):
            return self.budget.reserve(0.0, probing=False)  # a judge that calls no model
        estimate = max(prompt or 0.0, largest or 0.0)
        return self.budget.reserve(estimate, probing=largest is None)

    def _skip_for_budget(self, job: _Job) -> None:
        self._finish(job, _failure(job, BUDGET, "not judged: the --budget was reached"))

    def _step(self, job: _Job) -> None:
        if self.fatal is not None:
            return self._finish(job, _failure(job, self.fatal.kind, "not attempted after: "
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
            result = _failure(job, "judge_error", f"{type(exc).__name__}: {exc}")
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

    def _claim(self, job: _Job) -> bool:
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
        self.tracker.skip()
        self.queue.done()
        return False

    def _finish(self, job: _Job, result: Judgment) -> None:
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

    def _stamp(self, job: _Job, result: Judgment) -> Judgment:
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


def inputs_key(render_sha256: str | None, source_sha256: str | None) -> str:
    """What a judge is shown besides the slide and the rubric: its rendering and the source."""
    return stable_hash({"render": render_sha256, "source": source_sha256})


def judge_artifacts(
    store: RunStore,
    artifacts: Iterable[Artifact],
    judges: Sequence[SelectedJudge],
    *,
    rubric: Rubric | None = None,
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
    rubric = rubric or load_rubric()
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

    plans: list[tuple[SelectedJudge, JudgeLedger, list[_Job]]] = [
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
                    todo.append(_Job(key, artifact, evidence, repeat, judge_key, inputs, seen=(
                        stored.created_at.isoformat() if stored is not None else None)))

    total = sum(len(todo) for _, _, todo in plans)
    budget_state = _Budget(budget)
    redactor = Redactor({**find_secrets(),
                         **{k: v for selected in judges for k, v in selected.secrets.items()}})
    stop = threading.Event()
    with Claims(store) as claims, track("judging", total, quiet=quiet) as tracker:
        runs = [
            _JudgeRun(selected, todo, store=store, rubric=rubric, workers=jobs,
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
