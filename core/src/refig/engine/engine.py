"""One stage engine for ``refig evaluate`` and ``refig check``: inspect, render, gate, measure.

The :class:`Engine` runs the stage callables of :mod:`refig.engine.stages` over an
:class:`ArtifactSource`, which says what the items are, what is already done and where the
results go: the run store (:class:`refig.evaluation.StoreSource`, which skips what the store
holds so a killed evaluation resumes) or loose files (:class:`refig.engine.files.FileSource`).
Which stages apply to an item, and how, is its task family's call: its inspector and gate, its
render job, its gate folding, the metrics that serve it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from refig.console import err
from refig.engine.plugins import family_for, plugin, renderer_for
from refig.engine.stages import (
    Item,
    MeasureSource,
    RenderBatch,
    Rendered,
    by_source,
    final_gate,
    gate_value,
    inspect_item,
    render_batches,
    run_stage,
)
from refig.engine.timing import StageTimes
from refig.integrity import Damage
from refig.metric_values import source_sha256
from refig.models import GateResult, Inspection, MetricValue, Render
from refig.plugins import Selection
from refig.protocols import Artifact, Executor
from refig.records import PluginKind

#: (artifact, metric, reference): one metric's work on one artifact for one reference.
MetricKey = tuple[str, str, str]


def reference_of(artifact: Artifact) -> str:
    """What an artifact's metric values are measured against: its task's reference key (by its
    family), else its source's hash."""
    if artifact.task is not None:
        return family_for(artifact.family).reference_key(artifact.task)
    return source_sha256(artifact) or ""


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


class ArtifactSource(Protocol):
    """Where the engine's items come from, what of their work is done, where results go."""

    #: The task family of the source's items (one run, or one ``refig check``, is one family).
    family: str

    def items(self, damage: Damage | None) -> list[Item]:
        """The distinct artifacts to evaluate (those ``damage`` finds lost are left out)."""
        ...

    def reference_items(self, items: Sequence[Item], damage: Damage | None) -> list[Item]:
        """The task inputs of ``items`` their family renders beside them (its
        ``rendered_inputs``; a deck family's original and target decks), one per content."""
        ...

    def damage(self) -> Damage | None:
        """A tally of lost or damaged stored objects, or None when nothing is stored."""
        ...

    def inspecting(self, inspector: str, executor: Executor) -> Executor:
        """The executor of the inspect stage (the run store claims each item first)."""
        ...

    def rendering(self, name: str, settings: str, executor: Executor) -> Executor:
        """The executor of the render stage (the run store claims each item first)."""
        ...

    def measuring(self, metric: str, version: str, executor: Executor) -> Executor:
        """The executor of one metric's stage (the run store claims each item first)."""
        ...

    def inspected(self, inspector: str) -> set[str]:
        """The artifacts an inspection by ``inspector`` is held for."""
        ...

    def inspections(self, inspector: str) -> dict[str, Inspection]:
        """The inspections held, by artifact."""
        ...

    def keep_inspection(self, inspection: Inspection) -> None: ...

    def use_renderer(self, name: str, settings: str) -> None:
        """Note the rendering later stages read (the run store remembers it)."""
        ...

    def renders(self, name: str, settings: str, *, whole: bool = False) -> dict[str, Render]:
        """The renderings held, by artifact; ``whole``: only those whose pages are intact."""
        ...

    def keep_render(self, rendered: Rendered) -> None: ...

    def keep_gates(self, values: Sequence[MetricValue]) -> None: ...

    def measured(self, versions: Mapping[str, str]) -> set[MetricKey]:
        """The (artifact, metric, reference) work done by the current version of each metric."""
        ...

    def keep_values(self, values: Sequence[MetricValue]) -> int: ...

    def artifacts(self, inspections: Mapping[str, Inspection], renders: Mapping[str, Render],
                  gates: Mapping[str, GateResult], damage: Damage | None) -> Iterable[Artifact]:
        """Each (artifact, task) pair the metrics see."""
        ...


@dataclass
class Engine:
    """The deterministic stages over any :class:`ArtifactSource`."""

    renderer: Selection
    metrics: Sequence[Selection]
    executor: Executor
    jobs: int = 2
    quiet: bool = False

    def run(self, source: ArtifactSource) -> Summary:
        """Inspect, render, gate and measure; return what was done."""
        summary = Summary(damage=source.damage())
        times = summary.times
        with times.stage("inspect"):
            items = source.items(summary.damage)
            summary.artifacts = len(items)
            self._warm_renderer(source, items)
            inspections = self._inspect(source, items, summary)
        with times.stage("render"):
            renders = self._render(source, items, inspections, summary)
        with times.stage("gate"):
            gates = self._gate(source, items, inspections, renders, summary)
        self._measure(source, inspections, renders, gates, summary)
        return summary

    def _inspect(self, source: ArtifactSource, items: list[Item],
                 summary: Summary) -> dict[str, Inspection]:
        inspector = family_for(source.family).inspector
        done = source.inspected(inspector)
        # one program handed in for two tasks is one item per task: inspected once
        todo = list({item.sha256: item for item in items if item.sha256 not in done}.values())
        summary.skipped["inspect"] = len({item.sha256 for item in items}) - len(todo)
        stage = source.inspecting(inspector, self.executor)
        for _, result in run_stage("inspect", stage, inspect_item, todo, jobs=self.jobs,
                                   quiet=self.quiet):
            if isinstance(result, BaseException):
                summary.failures += 1
                continue
            source.keep_inspection(result)
            summary.inspected += 1
        summary.skipped["inspect"] += stage.elsewhere
        return source.inspections(inspector)

    def _warm_renderer(self, source: ArtifactSource, items: list[Item]) -> None:
        """Let the renderer start the processes the render stage will use now (``warm_up``:
        LibreOffice does; by default nothing), so their start-up overlaps inspection; only when
        the stages run in this process, on this renderer (its CPU then counts in the inspect
        stage)."""
        if not self.executor.in_process:
            return
        name = self.renderer.record.name
        renderer = renderer_for(name)
        done = source.renders(name, renderer.settings)  # an estimate: pages not checked here
        todo = [item for item in items if item.key not in done]
        renderer.warm_up(min(self.jobs, len(render_batches(todo, self.jobs))))

    def _render(self, source: ArtifactSource, items: list[Item],
                inspections: Mapping[str, Inspection], summary: Summary) -> dict[str, Render]:
        name = self.renderer.record.name
        settings = renderer_for(name).settings
        source.use_renderer(name, settings)
        done = source.renders(name, settings, whole=True)  # a lost page is rendered again
        wanted = [item for item in items
                  if item.sha256 in inspections and inspections[item.sha256].gate.passed]
        # a reference that is also an artifact (an unchanged deck) shares its rendering
        keys = {item.key for item in wanted}
        wanted += [item for item in source.reference_items(items, summary.damage)
                   if item.key not in keys]
        todo = [item for item in wanted if item.key not in done]
        summary.skipped["render"] = len(wanted) - len(todo)
        stage = source.rendering(name, settings, self.executor)
        for _, result in run_stage("render", stage, RenderBatch(name),
                                   render_batches(todo, self.jobs), jobs=self.jobs,
                                   quiet=self.quiet, weight=len):
            if isinstance(result, BaseException):
                summary.failures += 1
                continue
            for rendered in result:
                source.keep_render(rendered)
                summary.rendered += 1
        summary.skipped["render"] += stage.elsewhere
        return source.renders(name, settings)

    def _gate(self, source: ArtifactSource, items: list[Item],
              inspections: Mapping[str, Inspection], renders: Mapping[str, Render],
              summary: Summary) -> dict[str, GateResult]:
        gates: dict[str, GateResult] = {}
        values = []
        for item in items:
            inspection = inspections.get(item.sha256)
            if inspection is None:
                continue
            render = renders.get(item.key)
            if inspection.gate.passed and render is None:
                continue  # its rendering failed to run (reported above): no verdict yet
            gate = final_gate(inspection, render, item.family)
            gates[item.key] = gate
            summary.gates[gate.reason or "passed"] += 1
            # a gate that depends on the task is stored under the task's reference
            reference = (family_for(item.family).reference_key(item.task)
                         if item.key != item.sha256 and item.task is not None else None)
            values.append(gate_value(item.sha256, gate, render, inspection.inspector,
                                     reference))
        source.keep_gates(values)
        return gates

    def _measure(self, source: ArtifactSource, inspections: Mapping[str, Inspection],
                 renders: Mapping[str, Render], gates: Mapping[str, GateResult],
                 summary: Summary) -> None:
        if not self.metrics:
            return
        # values of an older version of a metric do not count: a new version measures again
        versions = {s.record.name: plugin(PluginKind.METRIC, s.record.name).version
                    for s in self.metrics}
        done = source.measured(versions)
        by_metric: dict[str, list[Artifact]] = {}
        for artifact in self._measurable(source, inspections, renders, gates, summary.damage):
            reference = reference_of(artifact)
            for selection in self.metrics:
                record = selection.record
                if not record.serves(artifact.family):
                    continue  # a metric runs on the families it names
                key = (artifact.sha256, record.name, reference)
                # a metric that does not read the source stores no reference: done for any task
                if key in done or (artifact.sha256, record.name, "") in done:
                    summary.skipped["metrics"] += 1
                    continue
                done.add(key)  # two tasks sharing a source and an artifact are measured once
                by_metric.setdefault(record.name, []).append(artifact)
        for metric, artifacts in by_metric.items():
            stage = source.measuring(metric, versions[metric], self.executor)
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
                    summary.metric_values += source.keep_values(result.values)
            summary.skipped["metrics"] += stage.elsewhere

    @staticmethod
    def _measurable(source: ArtifactSource, inspections: Mapping[str, Inspection],
                    renders: Mapping[str, Render], gates: Mapping[str, GateResult],
                    damage: Damage | None) -> Iterator[Artifact]:
        """The artifacts whose structure was read: the metrics see those."""
        for artifact in source.artifacts(inspections, renders, gates, damage):
            if artifact.structure is not None:
                yield artifact
