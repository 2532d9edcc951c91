"""The engine over a run store: inspection, rendering, the final gate, metrics.

The stage callables are :mod:`refig.engine.stages`'s. :class:`Evaluation` runs them over a run
store, skipping what the store already
holds, so a killed evaluation resumes where it stopped. ``refig check`` runs the same stages over
loose files. :func:`load_artifacts` gives later stages (the judges) every evaluated artifact.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from refig.claims import ClaimedStage, Claims
from refig.console import err
from refig.engine.plugins import family_for, plugin, renderer_for
from refig.engine.runs import primary_role, run_family
from refig.engine.stages import (
    Item,
    MeasureSource,
    RenderBatch,
    by_source,
    final_gate,
    gate_value,
    inspect_item,
    render_batches,
    run_stage,
)
from refig.engine.timing import StageTimes
from refig.integrity import Damage, intact
from refig.metric_values import source_sha256
from refig.models import (
    Attempt,
    GateResult,
    Inspection,
    MetricValue,
    Render,
    Task,
)
from refig.plugins import Registry, Selection
from refig.protocols import (
    Artifact,
    Executor,
)
from refig.records import MetricRecord, PluginKind
from refig.store import RunStore

#: Annotations larger than this are not parsed (they are JSON written by suite builders).
MAX_ANNOTATION_BYTES = 16 << 20
_META_RENDERER = "evaluation.renderer"


# --- the run-store pipeline ---------------------------------------------------------------------


@dataclass
class Summary:
    """What one evaluation did: work done now, work skipped as already stored, gate outcomes."""

    artifacts: int = 0
    inspected: int = 0
    rendered: int = 0
    metric_values: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    failures: int = 0
    gates: Counter[str] = field(default_factory=Counter)
    #: Objects found missing or damaged (their work was left out); None before a run.
    damage: Damage | None = None
    #: Wall and CPU seconds of each stage, for throughput reports.
    times: StageTimes = field(default_factory=StageTimes)

    def as_json(self) -> dict[str, Any]:
        return {
            "damaged_objects": len(self.damage.found) if self.damage else 0,
            "artifacts": self.artifacts,
            "inspected": self.inspected,
            "rendered": self.rendered,
            "metric_values": self.metric_values,
            "already_stored": dict(self.skipped),
            "failures": self.failures,
            "gates": dict(self.gates),
            **self.times.as_json(),
        }


@dataclass
class Evaluation:
    """Runs the deterministic stages over every attempt of a run that left a slide."""

    store: RunStore
    renderer: Selection
    metrics: Sequence[Selection]
    executor: Executor
    jobs: int = 2
    quiet: bool = False
    claims: Claims | None = None

    def run(self) -> Summary:
        """Inspect, render, gate and measure; return what was done.

        Each work item is claimed first, so a second evaluation of the run does the rest.
        """
        with Claims(self.store) as self.claims:
            return self._run()

    def _claimed(self, stage: str, stored: Any, grouped: bool = False,
                 key: Any = lambda element: element.sha256) -> ClaimedStage:
        """The executor for one stage, claiming each element under ``stage:key(element)``."""
        assert self.claims is not None
        return ClaimedStage(self.executor, self.claims, stored=stored, grouped=grouped,
                            key=lambda element: f"{stage}:{key(element)}")

    def _run(self) -> Summary:
        summary = Summary(damage=Damage(self.store))
        times = summary.times
        with times.stage("inspect"):
            items = self._items(summary.damage)
            summary.artifacts = len(items)
            inspections = self._inspect(items, summary)
        with times.stage("render"):
            renders = self._render(items, inspections, summary)
        with times.stage("gate"):
            gates = self._gate(items, inspections, renders, summary)
        self._measure(inspections, renders, gates, summary)
        return summary

    def _inspector(self) -> str:
        return family_for(run_family(self.store)).inspector

    def _items(self, damage: Damage) -> list[Item]:
        role = primary_role(self.store)
        outputs = {sha: f"{role} of attempt {a.task_id} / {a.config_id} / {a.try_index}"
                   for a in self.store.iter(Attempt) if (sha := a.output(role)) is not None}
        family = run_family(self.store)
        made_for = {a.output(role): a.task_id for a in self.store.iter(Attempt)}
        tasks = {task.id: task for task in self.store.iter(Task)}
        items = []
        for sha in sorted(outputs):
            if not damage.check(sha, outputs[sha]):
                continue
            task = tasks.get(made_for[sha])
            inputs = tuple((name, str(self.store.objects.path(asset.sha256)))
                           for name, asset in task.visible_inputs().items()) if task else ()
            items.append(Item(sha, str(self.store.objects.path(sha)), family, task, inputs))
        return items

    def _inspect(self, items: list[Item], summary: Summary) -> dict[str, Inspection]:
        inspector = self._inspector()
        done = {sha for sha, tag in self.store.keys(Inspection) if tag == inspector}
        todo = [item for item in items if item.sha256 not in done]
        summary.skipped["inspect"] = len(items) - len(todo)
        stage = self._claimed(f"inspect:{inspector}", lambda item: self.store.get(
            Inspection, artifact_sha256=item.sha256, inspector=inspector) is not None)
        for _, result in run_stage(
            "inspect", stage, inspect_item, todo, jobs=self.jobs, quiet=self.quiet
        ):
            if isinstance(result, BaseException):
                summary.failures += 1
                continue
            self.store.put(result, replace=True)
            summary.inspected += 1
        summary.skipped["inspect"] += stage.elsewhere
        return {
            i.artifact_sha256: i for i in self.store.iter(Inspection) if i.inspector == inspector
        }

    def _render(
        self, items: list[Item], inspections: Mapping[str, Inspection], summary: Summary
    ) -> dict[str, Render]:
        name = self.renderer.record.name
        renderer = renderer_for(name)
        settings = renderer.settings
        self.store.set_meta(_META_RENDERER, json.dumps({"name": name, "settings": settings}))
        # a rendering whose PNG was lost or damaged is made again
        def whole(sha: str | None = None) -> set[str]:
            found = self.store.iter(Render, renderer=name, settings=settings,
                                    **({"artifact_sha256": sha} if sha else {}))
            return {r.artifact_sha256 for r in found
                    if all(intact(self.store.objects, page.png_sha256) for page in r.pages)}

        done = whole()
        wanted = [
            item
            for item in items
            if item.sha256 in inspections and inspections[item.sha256].gate.passed
        ]
        todo = [item for item in wanted if item.sha256 not in done]
        summary.skipped["render"] = len(wanted) - len(todo)
        batches = render_batches(todo, self.jobs)
        stage = self._claimed(f"render:{name}", lambda item: bool(whole(item.sha256)),
                              grouped=True)
        for _, result in run_stage(
            "render",
            stage,
            RenderBatch(name),
            batches,
            jobs=self.jobs,
            quiet=self.quiet,
            weight=len,
        ):
            if isinstance(result, BaseException):
                summary.failures += 1
                continue
            for rendered in result:
                for png in rendered.pngs:
                    self.store.objects.put_bytes(png)
                if rendered.log:  # the interpreter's output, which the task pages show
                    self.store.objects.put_bytes(rendered.log)
                self.store.put(rendered.render, replace=True)
                summary.rendered += 1
        summary.skipped["render"] += stage.elsewhere
        return {
            r.artifact_sha256: r for r in self.store.iter(Render, renderer=name, settings=settings)
        }

    def _gate(
        self,
        items: list[Item],
        inspections: Mapping[str, Inspection],
        renders: Mapping[str, Render],
        summary: Summary,
    ) -> dict[str, GateResult]:
        gates: dict[str, GateResult] = {}
        values = []
        for item in items:
            inspection = inspections.get(item.sha256)
            if inspection is None:
                continue
            render = renders.get(item.sha256)
            if inspection.gate.passed and render is None:
                continue  # its rendering failed to run (reported above): no verdict yet
            gate = final_gate(inspection, render, item.family)
            gates[item.sha256] = gate
            summary.gates[gate.reason or "passed"] += 1
            values.append(gate_value(item.sha256, gate, render, inspection.inspector))
        self.store.put_many(values, replace=True)
        return gates

    def _measure(
        self,
        inspections: Mapping[str, Inspection],
        renders: Mapping[str, Render],
        gates: Mapping[str, GateResult],
        summary: Summary,
    ) -> None:
        if not self.metrics:
            return
        # values of an older version of a metric do not count: a new version measures again
        versions = {s.record.name: plugin(PluginKind.METRIC, s.record.name).version
                    for s in self.metrics}
        done = {
            (v.artifact_sha256, v.metric, v.reference_sha256 or "")
            for v in self.store.iter(MetricValue)
            if v.version == versions.get(v.metric, v.version)
        }
        work: list[tuple[Selection, Artifact]] = []
        for artifact in self._artifacts(inspections, renders, gates, summary.damage):
            reference = _reference(artifact)
            for selection in self.metrics:
                record = selection.record
                if artifact.task is not None and not record.serves(artifact.task.family):
                    continue
                key = (artifact.sha256, record.name, reference)
                # a metric that does not read the source stores no reference: done for any task
                if key in done or (artifact.sha256, record.name, "") in done:
                    summary.skipped["metrics"] += 1
                    continue
                done.add(key)  # two tasks sharing a source and a slide are measured once
                work.append((selection, artifact))
        by_metric: dict[str, list[Artifact]] = {}
        for selection, artifact in work:
            by_metric.setdefault(selection.record.name, []).append(artifact)
        for metric, artifacts in by_metric.items():
            def measured(artifact: Artifact, metric: str = metric) -> bool:
                return any(v.version == versions[metric]
                           and (v.reference_sha256 or "") in ("", _reference(artifact))
                           for v in self.store.iter(MetricValue, artifact_sha256=artifact.sha256,
                                                    metric=metric))

            stage = self._claimed(f"metric:{metric}", measured, grouped=True,
                                  key=lambda a: f"{a.sha256}:{_reference(a)}")
            # one work item per source: what a metric prepares per source is prepared once
            with summary.times.stage(f"metric {metric}"):
                for _, result in run_stage(f"metric {metric}", stage,
                                           MeasureSource(metric), by_source(artifacts),
                                           jobs=self.jobs, quiet=self.quiet, weight=len):
                    if isinstance(result, BaseException):
                        summary.failures += 1
                        continue
                    for failure in result.failures:
                        summary.failures += 1
                        if not self.quiet:
                            err.print(f"[red]metric {metric} failed:[/] {failure}")
                    summary.metric_values += self.store.put_many(result.values, replace=True)
            summary.skipped["metrics"] += stage.elsewhere

    def _artifacts(
        self,
        inspections: Mapping[str, Inspection],
        renders: Mapping[str, Render],
        gates: Mapping[str, GateResult],
        damage: Damage | None,
    ) -> Iterator[Artifact]:
        """Each (artifact, task) pair whose structure was read, for the metrics."""
        for artifact in _artifacts(self.store, inspections, renders, gates, damage=damage):
            if artifact.structure is not None:
                yield artifact


def _reference(artifact: Artifact) -> str:
    """What an artifact's metric values are measured against (its task's reference key)."""
    if artifact.task is not None:
        return family_for(artifact.family).reference_key(artifact.task)
    return source_sha256(artifact) or ""


# --- reading evaluated artifacts back -------------------------------------------------------------


def _annotation(store: RunStore, task: Task) -> Mapping[str, Any] | None:
    asset = task.input("annotation")
    if asset is None:
        return None
    path = store.objects.path(asset.sha256)
    try:
        if path.stat().st_size > MAX_ANNOTATION_BYTES:
            return None
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, Mapping) else None


def _artifacts(
    store: RunStore,
    inspections: Mapping[str, Inspection],
    renders: Mapping[str, Render],
    gates: Mapping[str, GateResult],
    metrics: Mapping[tuple[str, str], dict[str, float | None]] | None = None,
    *,
    damage: Damage | None = None,
) -> Iterator[Artifact]:
    """The artifacts whose output, task inputs and rendering are whole (the rest noted in
    ``damage``: left out, not scored)."""
    damage = damage or Damage(store)
    tasks = {task.id: task for task in store.iter(Task)}
    role = primary_role(store)
    family = run_family(store)
    known = metrics or {}
    seen: set[tuple[str, str]] = set()
    for attempt in store.iter(Attempt):
        sha = attempt.output(role)
        task = tasks.get(attempt.task_id)
        if sha is None or sha not in inspections or (sha, attempt.task_id) in seen:
            continue
        seen.add((sha, attempt.task_id))
        inspection = inspections[sha]
        render = renders.get(sha)
        inputs = [(sha, f"{role} of attempt {attempt.task_id} / {attempt.config_id}")]
        if task is not None:
            inputs += [(asset.sha256, f"{name} of task {task.id}")
                       for name, asset in task.inputs.items()]
        if render is not None:
            inputs += [(page.png_sha256, f"rendering of the {role} of task {attempt.task_id}")
                       for page in render.pages]
        if not all([damage.check(obj, what) for obj, what in inputs]):
            continue
        pages = tuple(store.objects.path(p.png_sha256) for p in render.pages) if render else ()
        references = {
            role: store.objects.path(asset.sha256) for role, asset in task.inputs.items()
        } if task else {}
        family_name = task.family if task else family
        rules = family_for(family_name)
        reference = rules.reference_key(task) if task else ""
        model = rules.structure_model()
        yield Artifact(
            path=store.objects.path(sha),
            sha256=sha,
            gate=gates.get(sha) or final_gate(inspection, render, family_name),
            family=family_name,
            files={
                role: store.objects.path(out) for role, out in attempt.outputs.items()
            },
            structure=inspection.parsed(model) if model is not None else inspection.structure,
            pages=pages if all(p.is_file() for p in pages) else (),
            task=task,
            references={role: p for role, p in references.items() if p.is_file()},
            annotation=_annotation(store, task) if task else None,
            # values measured against no reference (the gate) hold for every task
            metrics={**known.get((sha, ""), {}), **known.get((sha, reference), {})},
        )


def load_artifacts(store: RunStore, *, renderer: str | None = None,
                   damage: Damage | None = None) -> list[Artifact]:
    """Every evaluated (artifact, task) pair of a run, in attempt order, for later stages.

    Each carries its final gate, object tree, rendering, task, source, parsed annotation and its
    metric values as ``{"metric.name": value}`` (those measured against the task's source, and
    the gate as ``gate.passed``). ``renderer`` picks the rendering (default: the one the last
    ``refig evaluate`` used).
    """
    chosen = json.loads(store.get_meta(_META_RENDERER) or "{}")
    name = renderer or chosen.get("name")
    settings = chosen.get("settings") if not renderer or renderer == chosen.get("name") else None
    inspector = family_for(run_family(store)).inspector
    inspections = {i.artifact_sha256: i for i in store.iter(Inspection) if i.inspector == inspector}
    renders: dict[str, Render] = {}
    if name:
        for render in store.iter(Render, renderer=name):
            if settings is None or render.settings == settings:
                renders.setdefault(render.artifact_sha256, render)
    metrics: dict[tuple[str, str], dict[str, float | None]] = {}
    for value in store.iter(MetricValue):
        key = (value.artifact_sha256, value.reference_sha256 or "")
        metrics.setdefault(key, {})[f"{value.metric}.{value.name}"] = value.value
    return list(_artifacts(store, inspections, renders, {}, metrics, damage=damage))


def default_metrics(registry: Registry, family: str | None = None) -> list[Selection]:
    """The metrics ``refig evaluate``/``check`` run when ``--metric`` is not given: the
    installed metrics marked default and the family's own defaults, those serving ``family``."""
    wanted = set()
    if family is not None:
        record = registry.family(family).record
        wanted = set(getattr(record, "metrics", ()))
    return [
        registry.resolve(PluginKind.METRIC, r.name)
        for r in registry.records(PluginKind.METRIC)
        if isinstance(r, MetricRecord) and (r.default or r.name in wanted)
        and (family is None or r.serves(family))
    ]


def select_metrics(
    registry: Registry, names: Iterable[str] | None, family: str | None = None
) -> list[Selection]:
    """``--metric`` selectors resolved (unknown names, and metrics not serving ``family``,
    exit 2), or the default metrics."""
    names = list(names or [])
    if not names:
        return default_metrics(registry, family)
    if family is None:
        return [registry.resolve(PluginKind.METRIC, name) for name in names]
    return [registry.resolve_for(PluginKind.METRIC, name, family) for name in names]
