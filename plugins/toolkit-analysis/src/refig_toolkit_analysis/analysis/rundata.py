"""A run store read into memory, and what each configuration produced for each task.

Rules (``docs/statistics.md``): a task x configuration is scored from its latest succeeded attempt
(highest try index). When no attempt succeeded, or the succeeded one left no slide, it is a gate
failure whose reason is the attempt's typed error kind (``bad_request``, ``timeout``...;
``no_output`` when a succeeded attempt left none) with its message as detail, and the error kept
as ``failure``; an infrastructure failure (:mod:`.failures`) is told apart from the
model's own. Otherwise the final
gate that ``refig evaluate`` stores as metric ``gate/passed`` (structure and rendering) decides,
falling back to the inspection's structural gate; a failure keeps its reason. Gate failures score
zero on every axis. An artifact not evaluated yet is unscored: counted, never silently scored.

An outcome's metric values are those measured against its own task's reference (the family's
reference key) and its judgments those made on its own inputs (its rendering and its task's
source), so two tasks that received the same artifact each keep their own scores.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from refig.errors import UsageError
from refig.judging.stage import inputs_key
from refig.metric_values import task_source_sha256
from refig.models import (
    Attempt,
    AttemptStatus,
    Configuration,
    ErrorInfo,
    GateReason,
    Inspection,
    Judgment,
    MetricValue,
    Preference,
    Render,
    SuiteManifest,
    Task,
)
from refig.store import RunStore

from refig_toolkit_analysis.analysis.failures import is_infrastructure

#: Metric values of one artifact by reference key, then by (metric, name).
Values = dict[str, dict[tuple[str, str], MetricValue]]


@dataclass(frozen=True)
class Outcome:
    """What one configuration produced for one task, and whether it passed the gate."""

    task_id: str
    config_id: str
    attempt: Attempt
    artifact: str | None
    inspection: Inspection | None
    gate_reason: str | None = None
    gate_detail: str = ""
    values: Mapping[tuple[str, str], MetricValue] = field(default_factory=dict)
    judgments: tuple[Judgment, ...] = ()
    #: Why the attempt left nothing to score (None when it left an artifact).
    failure: ErrorInfo | None = None

    @property
    def infrastructure(self) -> bool:
        """True when nothing was produced because the provider or set-up failed, not the model."""
        return is_infrastructure(self.failure)

    def metric(self, metric: str, name: str) -> float | None:
        """One metric value measured for this outcome's task, or None when not measured."""
        value = self.values.get((metric, name))
        return None if value is None else value.value

    @property
    def gated(self) -> bool:
        """True when the artifact scores zero before any judge (a gate failure)."""
        return self.gate_reason is not None

    @property
    def evaluated(self) -> bool:
        """True when the gate verdict is known (a failure, or an inspected artifact)."""
        return self.gated or self.inspection is not None

    @property
    def passed(self) -> bool:
        """True when the artifact passed the gate and goes on to metrics and judges."""
        return self.evaluated and not self.gated


@dataclass
class RunData:
    """Every record of a run that the report reads, indexed for lookups."""

    root: Path
    store: RunStore
    suite: SuiteManifest | None
    tasks: dict[str, Task]
    configs: dict[str, Configuration]
    outcomes: dict[tuple[str, str], Outcome]
    attempts: list[Attempt]
    inspections: dict[str, Inspection]
    renders: dict[str, list[Render]]
    metrics: dict[str, Values]
    judgments: dict[str, list[Judgment]]
    preferences: list[Preference]
    task_order: list[str] = field(default_factory=list)
    config_order: list[str] = field(default_factory=list)
    #: Judging runs the store holds (the highest repeat index + 1; 0 without judgments).
    judging_runs: int = 0
    #: The one judging run loaded (1 = repeat 0), or None when every repeat is.
    judge_run: int | None = None

    @classmethod
    def load(cls, store: RunStore, *, judge_run: int | None = None) -> RunData:
        """Read a run store (one pass per table). With ``judge_run`` N only the judgments of
        repeat N-1 are read, as if the run had been judged once; N beyond the run's judging
        runs exits 2 naming them."""
        tasks = {t.id: t for t in store.iter(Task)}
        configs = {c.id: c for c in store.iter(Configuration)}
        attempts = list(store.iter(Attempt))
        inspections: dict[str, Inspection] = {}
        for ins in store.iter(Inspection):
            inspections.setdefault(ins.artifact_sha256, ins)
        renders: dict[str, list[Render]] = defaultdict(list)
        for render in store.iter(Render):
            renders[render.artifact_sha256].append(render)
        metrics: dict[str, Values] = defaultdict(lambda: defaultdict(dict))
        for value in store.iter(MetricValue):
            key = (value.metric, value.name)
            found = metrics[value.artifact_sha256][value.reference_sha256 or ""]
            held = found.get(key)
            if held is None or (held.value is None and value.value is not None):
                found[key] = value
        judgments: dict[str, list[Judgment]] = defaultdict(list)
        judging_runs = 0
        for judgment in store.iter(Judgment):
            judging_runs = max(judging_runs, judgment.repeat + 1)
            if judge_run is None or judgment.repeat == judge_run - 1:
                judgments[judgment.artifact_sha256].append(judgment)
        if judge_run is not None and not 1 <= judge_run <= judging_runs:
            raise UsageError(
                f"--judge-run {judge_run}: {store.root} has "
                + (f"{judging_runs} judging run{'s' * (judging_runs != 1)} (1 to {judging_runs})"
                   if judging_runs else "no judgments"),
                fix=(f"give --judge-run between 1 and {judging_runs}, or leave it out for the "
                     "mean of the runs") if judging_runs else
                "score it with `refig evaluate RUN --judge NAME` first")
        preferences = [p for p in store.iter(Preference) if p.active]  # undone votes left out
        for attempt in attempts:
            if attempt.config_id not in configs:
                configs[attempt.config_id] = _config_from_id(attempt.config_id)
        from refig.engine.runs import primary_role

        # a run without attempts has no outputs to find (and may not know its family yet)
        outcomes = _outcomes(attempts, inspections, primary_role(store) if attempts else "")
        outcomes = _with_scores(outcomes, tasks, metrics, judgments, renders)
        task_ids = sorted({t for t, _ in outcomes} | set(tasks))
        return cls(
            root=store.root,
            store=store,
            suite=store.suite(),
            tasks=tasks,
            configs=configs,
            outcomes=outcomes,
            attempts=attempts,
            inspections=inspections,
            renders=dict(renders),
            metrics={sha: dict(found) for sha, found in metrics.items()},
            judgments=dict(judgments),
            preferences=preferences,
            task_order=task_ids,
            config_order=sorted({c for _, c in outcomes}),
            judging_runs=judging_runs,
            judge_run=judge_run,
        )

    def cluster(self, task_id: str) -> str:
        """The source-figure cluster of a task (the task id when the task is unknown)."""
        task = self.tasks.get(task_id)
        return task.cluster_id if task is not None else task_id

    def render(self, artifact: str | None, task_id: str | None = None) -> Render | None:
        """The artifact's successful rendering (the first renderer setting that has one), as
        made for task ``task_id`` when its family renders per task (a program's inputs)."""
        return _rendered(self.renders, artifact, self.tasks.get(task_id or ""))

    def renderings(self, artifact: str | None, task_id: str | None = None) -> list[Render]:
        """Every rendering of the artifact made for task ``task_id``, failed ones included."""
        return _renderings(self.renders, artifact, self.tasks.get(task_id or ""))


def _renderings(renders: dict[str, list[Render]], artifact: str | None,
                task: Task | None = None) -> list[Render]:
    if not artifact:
        return []
    from refig.engine.stages import render_key

    key = render_key(artifact, task.family, task) if task is not None else artifact
    return renders.get(key, [])


def _rendered(renders: dict[str, list[Render]], artifact: str | None,
              task: Task | None = None) -> Render | None:
    return next((r for r in _renderings(renders, artifact, task) if r.png_sha256), None)


def _config_from_id(config_id: str) -> Configuration:
    """A configuration known only by its id (``model@harness/workflow``), for runs that lack one."""
    model, _, rest = config_id.partition("@")
    harness, _, workflow = rest.partition("/")
    workflow = workflow.split("[", 1)[0]
    try:
        return Configuration(model=model, harness=harness or "?", workflow=workflow or "?")
    except ValueError:
        return Configuration(model=config_id, harness="?", workflow="?")


#: The reason of a succeeded attempt that left no artifact.
NO_OUTPUT = "no_output"

#: Where ``refig evaluate`` stores the final gate (1 passed, 0 failed, reason in detail).
GATE_METRIC = ("gate", "passed")


def _outcomes(
    attempts: list[Attempt], inspections: dict[str, Inspection], role: str,
) -> dict[tuple[str, str], Outcome]:
    """Each cell's chosen attempt and artifact (no artifact: a gate failure named by the
    attempt's typed error); the final gate is read with the outcome's own metric values
    (:func:`_with_scores`)."""
    by_cell: dict[tuple[str, str], list[Attempt]] = defaultdict(list)
    for attempt in attempts:
        by_cell[(attempt.task_id, attempt.config_id)].append(attempt)
    outcomes = {}
    for (task_id, config_id), tries in by_cell.items():
        tries.sort(key=lambda a: a.try_index)
        succeeded = [a for a in tries if a.status == AttemptStatus.SUCCEEDED]
        attempt = succeeded[-1] if succeeded else tries[-1]
        artifact = attempt.output(role) if succeeded else None
        inspection = inspections.get(artifact) if artifact else None
        failure = None
        if artifact is None:
            failure = attempt.error or ErrorInfo(
                kind=NO_OUTPUT, message=f"the attempt succeeded but left no {role}")
        outcomes[(task_id, config_id)] = Outcome(
            task_id, config_id, attempt, artifact, inspection,
            failure.kind if failure else None, failure.message if failure else "",
            failure=failure,
        )
    return outcomes


def _with_scores(
    outcomes: dict[tuple[str, str], Outcome],
    tasks: dict[str, Task],
    metrics: dict[str, Values],
    judgments: dict[str, list[Judgment]],
    renders: dict[str, list[Render]],
) -> dict[tuple[str, str], Outcome]:
    """Each outcome with its own task's metric values and judgments, and its final gate."""
    from refig.engine.plugins import family_for

    def expected(outcome: Outcome) -> str:
        """The inputs key the judging stage gave this outcome: its rendering, its source."""
        task = tasks.get(outcome.task_id)
        render = _rendered(renders, outcome.artifact, task)
        return inputs_key(render.png_sha256 if render else None,
                          task_source_sha256(task) if task else None)

    inputs = {cell: expected(o) for cell, o in outcomes.items() if o.artifact is not None}
    keys_of: dict[str, set[str]] = defaultdict(set)
    for cell, key in inputs.items():
        keys_of[outcomes[cell].artifact or ""].add(key)
    scored = {}
    for cell, outcome in outcomes.items():
        if outcome.artifact is None:
            scored[cell] = outcome
            continue
        sha, task = outcome.artifact, tasks.get(outcome.task_id)
        reference = family_for(task.family).reference_key(task) if task else ""
        found = metrics.get(sha, {})
        values = {**found.get("", {}), **found.get(reference, {})}  # "": valid for every task
        reason, detail = outcome.gate_reason, outcome.gate_detail
        final, inspection = values.get(GATE_METRIC), outcome.inspection
        if final is not None and final.value is not None and final.value < 1:
            reason = str(final.detail.get("reason") or GateReason.RENDER_FAILED.value)
            detail = str(final.detail.get("detail") or "")
        elif final is None and inspection is not None and not inspection.gate.passed:
            reason = str(inspection.gate.reason or GateReason.CORRUPT.value)
            detail = inspection.gate.detail
        own = _own_judgments(judgments.get(sha, []), inputs[cell],
                             unambiguous=len(keys_of[sha]) == 1)
        scored[cell] = replace(outcome, gate_reason=reason, gate_detail=detail, values=values,
                               judgments=own)
    return scored


def _own_judgments(found: list[Judgment], inputs: str, *,
                   unambiguous: bool) -> tuple[Judgment, ...]:
    """The judgments made on an outcome's own inputs. When none match (an older rendering, a
    record without the key) and every task given this artifact has the same inputs, those made
    on its most recently judged inputs: no other task's judgment can be among them."""
    own = [j for j in found if j.inputs_sha256 == inputs]
    if not own and unambiguous and found:
        latest = max(found, key=lambda j: j.created_at).inputs_sha256
        own = [j for j in found if j.inputs_sha256 == latest]
    return tuple(own)
