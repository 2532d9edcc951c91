"""The driver of ``refig run``: record the suite, plan, run attempts on an executor, store them.

Only this process writes the run store; workers (threads or Ray tasks) return
:class:`~refig.running.attempt.AttemptOutcome` values. The suite's manifest, tasks, sources and
annotations are copied into the store on first use, so later stages never read the suite again.
"""

from __future__ import annotations

import os
import secrets
import statistics
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from refig.claims import Claims
from refig.console import track
from refig.errors import UsageError, refuse_file_as_folder
from refig.integrity import intact
from refig.models import Attempt, AttemptStatus, Configuration, Task, Usage
from refig.plugins import Registry, Selection, check_serves
from refig.records import Deliverable, HarnessRecord, PluginKind, TaskFamilyRecord
from refig.running.attempt import (
    AttemptJob,
    AttemptOutcome,
    failed_outcome,
    record_outcome,
    run_attempt,
)
from refig.running.processes import kill_tree
from refig.running.sandbox import SandboxPolicy
from refig.running.scheduler import Plan, Planned, plan_attempts
from refig.running.workspace import check_outside, default_root, sweep_stale
from refig.store import RunStore, sha256_file
from refig.suite import Suite, SuiteError, inside

DEFAULT_TIMEOUT = 1800.0


@dataclass(frozen=True)
class RunRequest:
    """One configuration over one suite into one run directory."""

    #: The suite, read once (by :func:`make_request`).
    suite: Suite
    out: Path
    harness: Selection
    workflow: Selection
    executor: Selection
    model: str = "none"
    options: dict[str, str] = field(default_factory=dict)
    jobs: int = 1
    limit: int | None = None
    timeout: float = DEFAULT_TIMEOUT
    retry_failed: bool = False
    max_tries: int = 3
    #: A new try of every task, done or not (``refig run --redo``).
    redo: bool = False
    sandbox: str = "auto"
    #: ``gateway`` (only the recording gateway is reachable) or ``host`` (see SandboxPolicy).
    network: str = "gateway"
    workspace_root: Path | None = None
    keep_workspaces: bool = False
    executor_options: dict[str, Any] = field(default_factory=dict)
    #: What an attempt must deliver: the suite's task family's deliverables.
    deliverables: tuple[Deliverable, ...] = field(kw_only=True)

    @property
    def configuration(self) -> Configuration:
        """The configuration, its harness's local options (paths) kept out of its id."""
        record = self.harness.record
        local = record.local_options if isinstance(record, HarnessRecord) else frozenset()
        return Configuration(model=self.model, harness=record.name,
                             workflow=self.workflow.record.name,
                             options={k: v for k, v in self.options.items() if k not in local},
                             local={k: v for k, v in self.options.items() if k in local})


@dataclass
class RunSummary:
    """What a ``refig run`` did, for the summary table and ``--json``."""

    run: Path
    config_id: str
    tasks: int
    sandbox: str
    executor: str
    network: str = "gateway"
    planned: int = 0
    skipped_done: int = 0
    skipped_failed: int = 0
    #: Attempts another live ``refig run`` held (or recorded) while this one ran.
    skipped_claimed: int = 0
    succeeded: int = 0
    failed: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    walls: list[float] = field(default_factory=list)
    priced_cost_usd: float = 0.0
    unpriced: int = 0
    usage: Usage = field(default_factory=Usage)
    turns: int = 0
    kept_workspaces: list[Path] = field(default_factory=list)

    def add(self, attempt: Attempt) -> None:
        if attempt.status == AttemptStatus.SUCCEEDED:
            self.succeeded += 1
        else:
            self.failed += 1
            self.errors[attempt.error.kind if attempt.error else "unknown"] += 1
        self.walls.append(attempt.wall_seconds)
        if attempt.cost_usd is not None:
            self.priced_cost_usd += attempt.cost_usd
        elif attempt.turns:  # it called a model whose price refig does not know
            self.unpriced += 1
        self.usage = self.usage + attempt.usage
        self.turns += attempt.turns or 0

    @property
    def cost_usd(self) -> float | None:
        """Dollars spent, or None when some attempt's model has no known price."""
        return None if self.unpriced else self.priced_cost_usd

    @property
    def median_wall(self) -> float | None:
        return statistics.median(self.walls) if self.walls else None

    def as_json(self) -> dict[str, Any]:
        return {
            "run": str(self.run), "configuration": self.config_id, "tasks": self.tasks,
            "sandbox": self.sandbox, "network": self.network, "executor": self.executor,
            "planned": self.planned,
            "skipped_done": self.skipped_done, "skipped_failed": self.skipped_failed,
            "skipped_claimed": self.skipped_claimed,
            "succeeded": self.succeeded, "failed": self.failed, "errors": dict(self.errors),
            "median_wall_seconds": self.median_wall, "cost_usd": self.cost_usd,
            "unpriced_attempts": self.unpriced,
            "usage": self.usage.model_dump(), "turns": self.turns,
            "kept_workspaces": [str(p) for p in self.kept_workspaces],
        }


def make_request(
    registry: Registry, *, suite: Path, out: Path, harness: str, workflow: str = "direct",
    model: str | None = None, executor: str = "local", ray_address: str | None = None,
    options: dict[str, str] | None = None, **fields: Any,
) -> RunRequest:
    """A checked :class:`RunRequest` from plugin names, as ``refig run`` (and ``refig demo``)
    build it: unknown names, a model for a baseline or none for a real harness, options the
    harness rejects, a harness or workflow that does not serve the suite's family and a Ray
    address without Ray all fail here (exit 2), before any work. The suite is read here, once."""
    refuse_file_as_folder(Path(out), f"--out {out}", noun="a run directory",
                          fix="give --out a new directory, or the directory of an earlier run")
    executor_sel = registry.resolve(PluginKind.EXECUTOR, executor)
    harness_sel = registry.resolve(PluginKind.HARNESS, harness)
    workflow_sel = registry.resolve(PluginKind.WORKFLOW, workflow)
    record = harness_sel.record
    needs_model = not isinstance(record, HarnessRecord) or record.needs_model
    if needs_model and not model:
        raise UsageError(f"harness {record.name} needs --model", fix="e.g. --model gpt-5.5")
    if not needs_model and model not in (None, "none"):
        raise UsageError(f"harness {record.name} uses no model; drop --model {model}")
    options = dict(options or {})
    if isinstance(record, HarnessRecord) and "suite" in record.local_options:
        options.setdefault("suite", str(suite))  # a baseline reading hidden references: this run's
    try:
        adapter = harness_sel.create(**options)
    except (TypeError, ValueError) as exc:
        raise UsageError(f"harness {record.name} rejects options {options}: {exc}") from exc
    for key, value in adapter.recorded_defaults.items():
        options.setdefault(key, value)  # a factor of the experiment: always in the id
    loaded = Suite.load(suite)
    family = loaded.manifest.family
    check_serves(registry, harness_sel, family)
    check_serves(registry, workflow_sel, family)
    family_record = registry.family(family).record
    assert isinstance(family_record, TaskFamilyRecord)  # the registry checks each record's kind
    fields.setdefault("deliverables", family_record.deliverables)
    executor_options: dict[str, Any] = {}
    if ray_address and executor_sel.record.name != "ray":
        raise UsageError("--ray-address needs --executor ray")
    address = ray_address or os.environ.get("REFIG_RAY_ADDRESS")
    if address and executor_sel.record.name == "ray":
        executor_options["address"] = address
    return RunRequest(suite=loaded, out=Path(out), harness=harness_sel,
                      workflow=workflow_sel, executor=executor_sel, model=model or "none",
                      options=options, executor_options=executor_options, **fields)


def record_suite(store: RunStore, suite: Suite, tasks: Sequence[Task]) -> None:
    """Copy the manifest, tasks, sources and annotations into the store (idempotent)."""
    manifest = store.suite()
    if manifest is None:
        store.set_meta("suite", suite.manifest.model_dump_json())
    elif (manifest.name, manifest.version, manifest.family) != (
        suite.manifest.name, suite.manifest.version, suite.manifest.family
    ):
        raise UsageError(
            f"{store.root} holds a run of suite {manifest.name} {manifest.version}, "
            f"not {suite.manifest.name} {suite.manifest.version}",
            path=store.root, fix="use another --out directory for another suite",
        )
    stored = {task.id: task for task in store.iter(Task)}
    fresh: list[Task] = []
    for task in tasks:
        known = stored.get(task.id)
        if known is not None and known.inputs != task.inputs:
            raise UsageError(
                f"task {task.id} of {suite.root} has another source than the one this run "
                "recorded", path=store.root, fix="use a new --out directory for a changed suite",
            )
        if known == task and all(intact(store.objects, a.sha256) for a in task.inputs.values()):
            continue  # recorded and whole (a lost or damaged input is copied in again)
        files = [(inside(suite.root, a.path), a.sha256, a.path) for a in task.inputs.values()]
        for path, expected, name in files:
            if not path.is_file():
                raise SuiteError(f"task {task.id}: {name} is missing", path=path,
                                 fix=f"`refig suite validate {suite.root}` lists every problem")
            if sha256_file(path) != expected:
                raise SuiteError(f"task {task.id}: {name} does not match its sha256", path=path,
                                 fix=f"`refig suite validate {suite.root}` lists every problem")
            store.objects.put_file(path)
        fresh.append(task)
    store.put_many(fresh, replace=True)


class _Jobs(Sequence[AttemptJob]):
    """The planned attempts as jobs, built when an executor asks (sources are read lazily).

    Iterating claims each attempt first: one another live process holds, or that was recorded
    since the plan was made, is skipped (``on_skip``), so two runs of one configuration split it.
    """

    def __init__(self, planned: list[Planned], make: Any, claims: Claims, store: RunStore,
                 config_id: str, on_start: Callable[[], None], on_skip: Callable[[], None]):
        self._planned, self._make = planned, make
        self._claims, self._store, self._config_id = claims, store, config_id
        self._on_start, self._on_skip = on_start, on_skip

    def __len__(self) -> int:
        return len(self._planned)

    def __getitem__(self, index: int) -> AttemptJob:  # type: ignore[override]
        return self._make(self._planned[index])

    def __iter__(self) -> Iterator[AttemptJob]:
        for planned in self._planned:
            item = attempt_claim(self._config_id, planned)
            if not self._claims.claim(item):
                self._on_skip()
                continue
            if self._store.get(Attempt, task_id=planned.task.id, config_id=self._config_id,
                               try_index=planned.try_index) is not None:
                self._claims.release(item)
                self._on_skip()
                continue
            self._on_start()
            yield self._make(planned)


def attempt_claim(config_id: str, planned: Planned) -> str:
    """The claim key of one attempt."""
    return f"attempt:{config_id}:{planned.task.id}:{planned.try_index}"


def execute(request: RunRequest, *, quiet: bool = False) -> RunSummary:
    """Run every planned attempt of one configuration; return the summary."""
    suite = request.suite
    tasks = list(suite.tasks[: request.limit] if request.limit is not None else suite.tasks)
    request.harness.create(**request.options).preflight(request.model)
    record = request.harness.record
    root = (request.workspace_root or default_root()).absolute()
    check_outside(root, suite.root, request.out)
    policy = SandboxPolicy.create(request.sandbox, protected=(suite.root, request.out, root),
                                  egress=request.network,
                                  agent=not isinstance(record, HarnessRecord) or record.runs_agent)
    root.mkdir(parents=True, exist_ok=True)
    sweep_stale(root)

    store = RunStore.create(request.out)
    record_suite(store, suite, suite.tasks)
    config = request.configuration
    store.put(config)
    plan: Plan = plan_attempts(
        tasks, store.query(Attempt, config_id=config.id),
        retry_failed=request.retry_failed, max_tries=request.max_tries, redo=request.redo,
    )
    summary = RunSummary(
        run=store.root, config_id=config.id, tasks=len(tasks), sandbox=policy.mode,
        network=policy.reach,
        executor=request.executor.record.name, planned=len(plan.todo),
        skipped_done=plan.done,
        skipped_failed=plan.failed_final + plan.failed_not_retried + plan.exhausted,
    )
    run_token = f"r{os.getpid()}{secrets.token_hex(4)}"

    def make(planned: Planned) -> AttemptJob:
        return AttemptJob(
            task=planned.task, inputs={
                role: store.objects.read_bytes(asset.sha256)
                for role, asset in planned.task.visible_inputs().items()
            },
            config=config, try_index=planned.try_index, harness=request.harness,
            workflow=request.workflow, timeout=request.timeout, sandbox=policy,
            workspace_root=root, run_token=run_token, keep_workspace=request.keep_workspaces,
            deliverables=request.deliverables,
        )

    jobs = max(1, request.jobs)
    executor = request.executor.create(**request.executor_options)
    claims = Claims(store)
    with claims, track(config.id, total=len(plan.todo), quiet=quiet) as tracker:

        def skip() -> None:
            summary.skipped_claimed += 1
            tracker.done_elsewhere()

        todo = _Jobs(plan.todo, make, claims, store, config.id, tracker.start, skip)
        results = executor.map(run_attempt, todo, jobs=jobs)
        try:
            for job, result in results:
                outcome = (result if isinstance(result, AttemptOutcome)
                           else failed_outcome(job, result))
                record_outcome(store, outcome)
                claims.release(attempt_claim(config.id, Planned(job.task, job.try_index)))
                summary.add(outcome.attempt)
                if outcome.kept_workspace is not None:
                    summary.kept_workspaces.append(outcome.kept_workspace)
                tracker.finish(ok=outcome.attempt.status == AttemptStatus.SUCCEEDED)
        except BaseException:
            # End the attempts still running (their records are not written: a re-run redoes
            # them).
            kill_tree(marker=run_token + ".")
            raise
        finally:
            close = getattr(results, "close", None)
            if close is not None:
                close()
            executor.close()
    store.close()
    return summary
