"""The run store as an artifact source: what ``refig evaluate`` runs the engine over.

:class:`StoreSource` gives the :class:`~refig.engine.engine.Engine` each distinct primary output
of a run's attempts, skips what the store already holds (so a killed evaluation resumes where it
stopped) and claims each work item first (so two evaluations of one run split the work).
:class:`Evaluation` is the engine over it. :func:`load_artifacts` gives later stages (the
judges) every evaluated artifact.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from refig.claims import ClaimedStage, Claims
from refig.context import RunContext
from refig.engine.engine import Engine, MetricKey, Summary, reference_of
from refig.engine.plugins import family_for
from refig.engine.stages import Item, Rendered, final_gate, render_key
from refig.integrity import Damage, intact
from refig.models import Attempt, GateResult, Inspection, MetricValue, Render, Task
from refig.plugins import Registry, Selection, check_serves
from refig.protocols import Artifact, Executor
from refig.records import MetricRecord, PluginKind, TaskFamilyRecord
from refig.store import RunStore

__all__ = ["Evaluation", "StageChoice", "StoreSource", "Summary", "default_metrics",
           "load_artifacts"]

#: Annotations larger than this are not parsed (they are JSON written by suite builders).
MAX_ANNOTATION_BYTES = 16 << 20
_META_RENDERER = "evaluation.renderer"


@dataclass
class StoreSource:
    """A run store's attempts' primary outputs, as the engine's items; results stored in it."""

    context: RunContext
    claims: Claims
    store: RunStore = field(init=False)
    #: The run's task family (the engine's sources name theirs).
    family: str = field(init=False)

    def __post_init__(self) -> None:
        self.store, self.family = self.context.store, self.context.family

    def damage(self) -> Damage:
        return Damage(self.store)

    def items(self, damage: Damage | None) -> list[Item]:
        """One item per output and distinct rendering key (:func:`render_key`): a program
        handed in for two tasks is executed for each, with that task's inputs."""
        role = self.context.role
        tasks = {task.id: task for task in self.store.iter(Task)}
        found: dict[tuple[str, str], tuple[str, Task | None]] = {}
        for a in self.store.iter(Attempt):
            if (sha := a.output(role)) is None:
                continue
            task = tasks.get(a.task_id)
            key = render_key(sha, task.family if task else self.family, task)
            found[(sha, key)] = (f"{role} of attempt {a.task_id} / {a.config_id} / "
                                 f"{a.try_index}", task)
        items = []
        checked: dict[str, bool] = {}
        for (sha, key), (what, task) in sorted(found.items(), key=lambda kv: kv[0]):
            if damage is not None and not checked.setdefault(sha, damage.check(sha, what)):
                continue
            inputs = tuple((name, str(self.store.objects.path(asset.sha256)))
                           for name, asset in task.visible_inputs().items()) if task else ()
            items.append(Item(sha, str(self.store.objects.path(sha)), self.family, task, inputs,
                              render_key=key))
        return items

    def reference_items(self, items: Sequence[Item], damage: Damage | None) -> list[Item]:
        roles = rendered_inputs(self.family)
        found: dict[str, Item] = {}
        for item in items:
            if item.task is None:
                continue
            for role in roles:
                asset = item.task.input(role)
                if asset is None or asset.sha256 in found:
                    continue
                if damage is None or damage.check(asset.sha256, f"{role} of task {item.task.id}"):
                    found[asset.sha256] = Item(asset.sha256, str(self.store.objects.path(
                        asset.sha256)), item.family, item.task)
        return [found[sha] for sha in sorted(found)]

    def inspecting(self, inspector: str, executor: Executor) -> Executor:
        def stored(item: Item) -> bool:
            return self.store.get(Inspection, artifact_sha256=item.sha256,
                                  inspector=inspector) is not None

        return ClaimedStage(executor, self.claims, stored=stored,
                            key=lambda item: f"inspect:{inspector}:{item.sha256}")

    def rendering(self, name: str, settings: str, executor: Executor) -> Executor:
        return ClaimedStage(executor, self.claims, grouped=True,
                            stored=lambda item: bool(self._whole(name, settings, item.key)),
                            key=lambda item: f"render:{name}:{item.key}")

    def measuring(self, metric: str, version: str, executor: Executor) -> Executor:
        def stored(artifact: Artifact) -> bool:
            return any(v.version == version
                       and (v.reference_sha256 or "") in ("", reference_of(artifact))
                       for v in self.store.iter(MetricValue, artifact_sha256=artifact.sha256,
                                                metric=metric))

        return ClaimedStage(executor, self.claims, grouped=True, stored=stored,
                            key=lambda a: f"metric:{metric}:{a.sha256}:{reference_of(a)}")

    def inspected(self, inspector: str) -> set[str]:
        return {sha for sha, tag in self.store.keys(Inspection) if tag == inspector}

    def inspections(self, inspector: str) -> dict[str, Inspection]:
        return {i.artifact_sha256: i for i in self.store.iter(Inspection)
                if i.inspector == inspector}

    def keep_inspection(self, inspection: Inspection) -> None:
        self.store.put(inspection, replace=True)

    def use_renderer(self, name: str, settings: str) -> None:
        self.store.set_meta(_META_RENDERER, json.dumps({"name": name, "settings": settings}))

    def _whole(self, name: str, settings: str, sha: str | None = None) -> dict[str, Render]:
        """The renderings whose pages are all intact (a lost or damaged PNG is made again)."""
        found = self.store.iter(Render, renderer=name, settings=settings,
                                **({"artifact_sha256": sha} if sha else {}))
        return {r.artifact_sha256: r for r in found
                if all(intact(self.store.objects, page.png_sha256) for page in r.pages)}

    def renders(self, name: str, settings: str, *, whole: bool = False) -> dict[str, Render]:
        if whole:
            return self._whole(name, settings)
        return {r.artifact_sha256: r
                for r in self.store.iter(Render, renderer=name, settings=settings)}

    def keep_render(self, rendered: Rendered) -> None:
        for png in rendered.pngs:
            self.store.objects.put_bytes(png)
        if rendered.log:  # the interpreter's output, which the task pages show
            self.store.objects.put_bytes(rendered.log)
        self.store.put(rendered.render, replace=True)

    def keep_gates(self, values: Sequence[MetricValue]) -> None:
        self.store.put_many(values, replace=True)

    def measured(self, versions: Mapping[str, str]) -> set[MetricKey]:
        return {(v.artifact_sha256, v.metric, v.reference_sha256 or "")
                for v in self.store.iter(MetricValue)
                if v.version == versions.get(v.metric, v.version)}

    def keep_values(self, values: Sequence[MetricValue]) -> int:
        for value in values:  # the files a value names are there before the value is
            for data in value.objects:
                self.store.objects.put_bytes(data)
        return self.store.put_many(values, replace=True)

    def artifacts(self, inspections: Mapping[str, Inspection], renders: Mapping[str, Render],
                  gates: Mapping[str, GateResult], damage: Damage | None) -> Iterator[Artifact]:
        return _artifacts(self.context, inspections, renders, gates, damage=damage)


@dataclass
class Evaluation:
    """The engine over every attempt of a run that left its family's primary output."""

    context: RunContext
    renderer: Selection
    metrics: Sequence[Selection]
    executor: Executor
    jobs: int = 2
    quiet: bool = False

    def run(self) -> Summary:
        """Inspect, render, gate and measure; return what was done. Each work item is claimed
        first, so a second evaluation of the run does the rest."""
        engine = Engine(self.renderer, self.metrics, self.executor, jobs=self.jobs,
                        quiet=self.quiet)
        with Claims(self.context.store) as claims:
            return engine.run(StoreSource(self.context, claims))


def rendered_inputs(family: str) -> tuple[str, ...]:
    """The task inputs family ``family`` has rendered and stored in the run beside the artifacts
    (its optional ``rendered_inputs``), so metrics, judges and the viewer read the same pages."""
    return tuple(family_for(family).rendered_inputs)


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
    context: RunContext,
    inspections: Mapping[str, Inspection],
    renders: Mapping[str, Render],
    gates: Mapping[str, GateResult],
    metrics: Mapping[tuple[str, str], dict[str, float | None]] | None = None,
    *,
    damage: Damage | None = None,
) -> Iterator[Artifact]:
    """The artifacts whose output, task inputs and rendering are whole (the rest noted in
    ``damage``: left out, not scored)."""
    store, family, role = context.store, context.family, context.role
    damage = damage or Damage(store)
    tasks = {task.id: task for task in store.iter(Task)}
    known = metrics or {}
    seen: set[tuple[str, str]] = set()
    for attempt in store.iter(Attempt):
        sha = attempt.output(role)
        task = tasks.get(attempt.task_id)
        if sha is None or sha not in inspections or (sha, attempt.task_id) in seen:
            continue
        seen.add((sha, attempt.task_id))
        inspection = inspections[sha]
        key = render_key(sha, task.family if task else family, task)
        render = renders.get(key)
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
        reference_pages = {}
        for name in rendered_inputs(family_name) if task else ():
            asset = task.input(name) if task else None
            made = renders.get(asset.sha256) if asset is not None else None
            found = tuple(store.objects.path(p.png_sha256) for p in made.pages) if made else ()
            if found and all(p.is_file() for p in found):
                reference_pages[name] = found
        reference = rules.reference_key(task) if task else ""
        model = rules.structure_model()
        yield Artifact(
            path=store.objects.path(sha),
            sha256=sha,
            gate=gates.get(key) or final_gate(inspection, render, family_name),
            family=family_name,
            files={
                role: store.objects.path(out) for role, out in attempt.outputs.items()
            },
            structure=inspection.parsed(model) if model is not None else inspection.structure,
            pages=pages if all(p.is_file() for p in pages) else (),
            task=task,
            references={role: p for role, p in references.items() if p.is_file()},
            reference_pages=reference_pages,
            annotation=_annotation(store, task) if task else None,
            # values measured against no reference (the gate) hold for every task
            metrics={**known.get((sha, ""), {}), **known.get((sha, reference), {})},
        )


def load_artifacts(context: RunContext, *, renderer: str | None = None,
                   damage: Damage | None = None) -> list[Artifact]:
    """Every evaluated (artifact, task) pair of a run, in attempt order, for later stages.

    Each carries its final gate, object tree, rendering, task, source, parsed annotation and its
    metric values as ``{"metric.name": value}`` (those measured against the task's source, and
    the gate as ``gate.passed``). ``renderer`` picks the rendering (default: the one the last
    ``refig evaluate`` used).
    """
    store = context.store
    chosen = json.loads(store.get_meta(_META_RENDERER) or "{}")
    name = renderer or chosen.get("name")
    settings = chosen.get("settings") if not renderer or renderer == chosen.get("name") else None
    inspector = family_for(context.family).inspector
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
    return list(_artifacts(context, inspections, renders, {}, metrics, damage=damage))


def default_metrics(registry: Registry, family: TaskFamilyRecord) -> list[Selection]:
    """The metrics ``refig evaluate``/``check`` run when ``--metric`` is not given: the
    installed metrics marked default and the family's own defaults, those serving ``family``."""
    wanted = set(family.metrics)
    return [
        registry.resolve(PluginKind.METRIC, r.name)
        for r in registry.records(PluginKind.METRIC)
        if isinstance(r, MetricRecord) and (r.default or r.name in wanted)
        and r.serves(family.name)
    ]


@dataclass(frozen=True)
class StageChoice:
    """The renderer and metrics a command was asked for (``--renderer``, ``--metric``), resolved
    by name first, so a typo exits 2 before any file is read; :meth:`serving` then fits them to
    the task family (its renderer and default metrics when none were named)."""

    renderer: Selection | None
    metrics: tuple[Selection, ...]

    @classmethod
    def named(cls, registry: Registry, renderer: str | None,
              metrics: Iterable[str]) -> StageChoice:
        """The named renderer and metrics (unknown names exit 2, listing the installed ones)."""
        return cls(registry.resolve(PluginKind.RENDERER, renderer) if renderer else None,
                   tuple(registry.resolve(PluginKind.METRIC, name) for name in metrics))

    def serving(self, registry: Registry,
                family: TaskFamilyRecord) -> tuple[Selection, list[Selection]]:
        """The renderer and metrics for ``family``; a named one that does not serve it exits 2
        (:class:`~refig.errors.FamilyMismatchError`)."""
        renderer = self.renderer or registry.resolve(PluginKind.RENDERER, family.renderer)
        metrics = list(self.metrics) or default_metrics(registry, family)
        for selection in (renderer, *self.metrics):
            check_serves(registry, selection, family.name)
        return renderer, metrics
