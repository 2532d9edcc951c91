"""The deterministic evaluation of artifacts: inspection, rendering, the final gate, metrics.

Each stage is a picklable callable mapped over work items by an executor (threads by default, Ray
when selected); the plugins it needs (renderer, metrics) are built once per process from their
names. :class:`Evaluation` runs the stages over a run store, skipping what the store already
holds, so a killed evaluation resumes where it stopped. ``refig check`` runs the same stages over
loose files. :func:`load_artifacts` gives later stages (the judges) every evaluated artifact.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import resource
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from PIL import Image

from refig.console import err, track
from refig.metric_values import source_sha256
from refig.models import (
    Attempt,
    ErrorInfo,
    GateResult,
    Inspection,
    MetricValue,
    Output,
    Page,
    Render,
    Task,
)
from refig.plugins import Registry, Selection
from refig.pptx.gate import INSPECTOR, fold_render, inspect_structure
from refig.pptx.objects import ObjectTree
from refig.protocols import (
    Artifact,
    Executor,
    Metric,
    Renderer,
    RenderJob,
    RenderOutput,
    TaskFamily,
)
from refig.records import FIGURE_TO_SLIDE, MetricRecord, PluginKind
from refig.store import RunStore

T = TypeVar("T")
R = TypeVar("R")

#: The final gate is stored as a metric value ``gate/passed`` (1 or 0) with the reason in detail.
GATE_METRIC = "gate"
#: At most this many files go to one renderer call (one warm LibreOffice process converts them).
MAX_RENDER_BATCH = 32
#: Annotations larger than this are not parsed (they are JSON written by suite builders).
MAX_ANNOTATION_BYTES = 16 << 20
_META_RENDERER = "evaluation.renderer"


# --- plugins built once per process -------------------------------------------------------------

_plugins: dict[tuple[str, str], Any] = {}
_plugins_lock = threading.Lock()
_registry: Registry | None = None


def use_registry(registry: Registry) -> None:
    """Let stage callables in this process use an already loaded registry."""
    global _registry
    _registry = registry


def _plugin(kind: PluginKind, name: str) -> Any:
    """The plugin object for ``name``, created on first use in this process (thread-safe)."""
    global _registry
    with _plugins_lock:
        key = (kind.value, name)
        if key not in _plugins:
            if _registry is None:
                _registry = Registry.load()
            _plugins[key] = _registry.resolve(kind, name).create()
        return _plugins[key]


def family_for(name: str) -> TaskFamily:
    """This process's task family object ``name``."""
    return _plugin(PluginKind.FAMILY, name)


def renderer_for(name: str) -> Renderer:
    """This process's renderer ``name`` (warm between calls until :func:`close_plugins`)."""
    return _plugin(PluginKind.RENDERER, name)


def close_plugins() -> None:
    """Close the renderers (and anything else closable) this process created."""
    with _plugins_lock:
        for plugin in _plugins.values():
            close = getattr(plugin, "close", None)
            if callable(close):
                close()
        _plugins.clear()


# --- stage callables ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Item:
    """One artifact file to evaluate: its hash and where its bytes are."""

    sha256: str
    path: str


def inspect_item(item: Item) -> Inspection:
    """Gate structure and object tree of one file."""
    structure = inspect_structure(item.path)
    return Inspection(
        artifact_sha256=item.sha256,
        inspector=INSPECTOR,
        gate=structure.gate,
        structure=None if structure.tree is None else structure.tree.model_dump(mode="json"),
        seconds=structure.seconds,
    )


@dataclass(frozen=True)
class Rendered:
    """One file's rendering: the record, and the PNG bytes (so remote workers can return them)."""

    render: Render
    pngs: tuple[bytes, ...]


def _rendered(item: Item, output: RenderOutput, renderer: Renderer, name: str) -> Rendered:
    """The stored record of one output; a PNG that does not open counts as a failed render."""
    pngs: list[bytes] = []
    pages: list[Page] = []
    error = output.error
    try:
        for index, path in enumerate(output.pages):
            data = path.read_bytes()
            with Image.open(io.BytesIO(data)) as image:
                width, height = image.size
            pngs.append(data)
            pages.append(Page(index=index, png_sha256=hashlib.sha256(data).hexdigest(),
                              width_px=width, height_px=height))
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        pngs, pages = [], []
        error = ErrorInfo(kind="render_failed", message=f"unreadable PNG: {exc}")
    if not pages and error is None:
        error = ErrorInfo(kind="render_failed", message="the renderer gave no PNG")
    render = Render(
        artifact_sha256=item.sha256,
        renderer=name,
        settings=renderer.settings,
        pages=tuple(pages),
        renderer_version=renderer.version,
        fonts=tuple(renderer.fonts),
        seconds=output.seconds,
        error=error,
    )
    return Rendered(render, tuple(pngs))


@dataclass(frozen=True)
class RenderBatch:
    """Renders a batch of files with the named renderer; picklable for remote executors."""

    renderer: str

    def __call__(self, batch: Sequence[Item]) -> list[Rendered]:
        renderer = renderer_for(self.renderer)
        with tempfile.TemporaryDirectory(prefix="refig-render-") as tmp:
            outputs = renderer.render([RenderJob(Path(item.path)) for item in batch], Path(tmp))
            return [
                _rendered(item, output, renderer, self.renderer)
                for item, output in zip(batch, outputs, strict=True)
            ]


@dataclass(frozen=True)
class ComputeMetric:
    """Runs the named metric on one artifact; picklable for remote executors."""

    metric: str

    def __call__(self, artifact: Artifact) -> list[MetricValue]:
        plugin: Metric = _plugin(PluginKind.METRIC, self.metric)
        return list(plugin.compute(artifact))


@dataclass(frozen=True)
class Measured:
    """The values a metric gave for a group of artifacts, and one line per artifact it failed on."""

    values: list[MetricValue]
    failures: list[str]


@dataclass(frozen=True)
class MeasureSource:
    """Runs the named metric on the artifacts of one source figure; picklable for remote executors.

    One work item per source means what a metric computes once per source (its OCR, its
    matching signature) is computed once, by one worker, while the sources spread over all.
    """

    metric: str

    def __call__(self, artifacts: Sequence[Artifact]) -> Measured:
        plugin: Metric = _plugin(PluginKind.METRIC, self.metric)
        values: list[MetricValue] = []
        failures: list[str] = []
        for artifact in artifacts:
            try:
                values.extend(plugin.compute(artifact))
            except Exception as exc:  # one artifact's failure must not cost its neighbours
                failures.append(f"{artifact.sha256[:12]}: {type(exc).__name__}: {exc}")
        return Measured(values, failures)


def by_source(artifacts: Iterable[Artifact]) -> list[list[Artifact]]:
    """Artifacts grouped by their task's source figure (artifacts without a task alone)."""
    groups: dict[str, list[Artifact]] = {}
    for artifact in artifacts:
        key = source_sha256(artifact) or f"artifact:{artifact.sha256}"
        groups.setdefault(key, []).append(artifact)
    return list(groups.values())


@contextmanager
def _timed(summary: Summary, stage: str) -> Iterator[None]:
    """Add the wall and CPU seconds of the block to ``summary.seconds[stage]`` and
    ``summary.cpu_seconds[stage]``."""
    started, cpu = time.perf_counter(), _cpu()
    try:
        yield
    finally:
        summary.seconds[stage] = summary.seconds.get(stage, 0.0) + time.perf_counter() - started
        summary.cpu_seconds[stage] = summary.cpu_seconds.get(stage, 0.0) + _cpu() - cpu


def _cpu() -> float:
    """CPU seconds of this process and of its children that ended."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def final_gate(inspection: Inspection, render: Render | None) -> GateResult:
    """g(P): the structural verdict folded with the render's outcome."""
    if render is None:
        return fold_render(inspection.gate, None, rendered=False)
    return fold_render(inspection.gate, render.error, rendered=render.png_sha256 is not None)


def gate_value(sha256: str, gate: GateResult, render: Render | None) -> MetricValue:
    """The final gate as a stored metric value (1 passed, 0 failed; reason in detail)."""
    detail: dict[str, Any] = {
        "reason": gate.reason,
        "detail": gate.detail,
        "slides": gate.slides,
    }
    if render is not None:
        detail |= {"renderer": render.renderer, "settings": render.settings}
    return MetricValue(
        artifact_sha256=sha256,
        metric=GATE_METRIC,
        name="passed",
        value=1.0 if gate.passed else 0.0,
        version=INSPECTOR,
        detail=detail,
    )


def render_batches(items: Sequence[Item], jobs: int) -> list[list[Item]]:
    """Batches that keep ``jobs`` workers busy without a cold start per file."""
    if not items:
        return []
    size = min(MAX_RENDER_BATCH, max(1, math.ceil(len(items) / max(1, jobs))))
    return [list(items[i : i + size]) for i in range(0, len(items), size)]


def run_stage(
    description: str,
    executor: Executor,
    fn: Callable[[T], R],
    items: Sequence[T],
    *,
    jobs: int,
    quiet: bool,
    weight: Callable[[T], int] = lambda _: 1,
) -> Iterator[tuple[T, R | BaseException]]:
    """Map ``fn`` over ``items`` with progress (counted in ``weight`` units, e.g. files of a
    batch); a failed item is reported once and yielded with its exception."""
    total = sum(weight(item) for item in items)
    with track(description, total, quiet=quiet) as tracker:
        queued = iter(items)

        def begin() -> None:
            item = next(queued, None)
            if item is not None:
                for _ in range(weight(item)):
                    tracker.start()

        for _ in range(min(max(1, jobs), len(items))):
            begin()
        for item, result in executor.map(fn, items, jobs=jobs):
            ok = not isinstance(result, BaseException)
            for _ in range(weight(item)):
                tracker.finish(ok)
            begin()
            if not ok and not quiet:
                err.print(f"[red]{description} failed:[/] {type(result).__name__}: {result}")
            yield item, result


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
    #: Wall seconds of each stage (``metric <name>`` for each metric), for throughput reports.
    seconds: dict[str, float] = field(default_factory=dict)
    #: CPU seconds of each stage in this process and the processes it waited for (LibreOffice):
    #: unlike wall time, hardly changed by other work on the machine.
    cpu_seconds: dict[str, float] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {
            "artifacts": self.artifacts,
            "inspected": self.inspected,
            "rendered": self.rendered,
            "metric_values": self.metric_values,
            "already_stored": dict(self.skipped),
            "failures": self.failures,
            "gates": dict(self.gates),
            "seconds": {stage: round(value, 3) for stage, value in self.seconds.items()},
            "cpu_seconds": {stage: round(value, 3) for stage, value in self.cpu_seconds.items()},
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

    def run(self) -> Summary:
        """Inspect, render, gate and measure; return what was done."""
        summary = Summary()
        with _timed(summary, "inspect"):
            items = self._items()
            summary.artifacts = len(items)
            inspections = self._inspect(items, summary)
        with _timed(summary, "render"):
            renders = self._render(items, inspections, summary)
        with _timed(summary, "gate"):
            gates = self._gate(items, inspections, renders, summary)
        self._measure(inspections, renders, gates, summary)
        return summary

    def _items(self) -> list[Item]:
        shas = sorted(
            {a.slide_sha256 for a in self.store.iter(Attempt) if a.slide_sha256 is not None}
        )
        return [Item(sha, str(self.store.objects.path(sha))) for sha in shas]

    def _inspect(self, items: list[Item], summary: Summary) -> dict[str, Inspection]:
        done = {sha for sha, inspector in self.store.keys(Inspection) if inspector == INSPECTOR}
        todo = [item for item in items if item.sha256 not in done]
        summary.skipped["inspect"] = len(items) - len(todo)
        for _, result in run_stage(
            "inspect", self.executor, inspect_item, todo, jobs=self.jobs, quiet=self.quiet
        ):
            if isinstance(result, BaseException):
                summary.failures += 1
                continue
            self.store.put(result, replace=True)
            summary.inspected += 1
        return {
            i.artifact_sha256: i for i in self.store.iter(Inspection) if i.inspector == INSPECTOR
        }

    def _render(
        self, items: list[Item], inspections: Mapping[str, Inspection], summary: Summary
    ) -> dict[str, Render]:
        name = self.renderer.record.name
        renderer = renderer_for(name)
        settings = renderer.settings
        self.store.set_meta(_META_RENDERER, json.dumps({"name": name, "settings": settings}))
        done = {k[0] for k in self.store.keys(Render) if k[1] == name and k[2] == settings}
        wanted = [
            item
            for item in items
            if item.sha256 in inspections and inspections[item.sha256].gate.passed
        ]
        todo = [item for item in wanted if item.sha256 not in done]
        summary.skipped["render"] = len(wanted) - len(todo)
        batches = render_batches(todo, self.jobs)
        for _, result in run_stage(
            "render",
            self.executor,
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
                self.store.put(rendered.render, replace=True)
                summary.rendered += 1
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
            gate = final_gate(inspection, render)
            gates[item.sha256] = gate
            summary.gates[gate.reason or "passed"] += 1
            values.append(gate_value(item.sha256, gate, render))
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
        versions = {s.record.name: _plugin(PluginKind.METRIC, s.record.name).version
                    for s in self.metrics}
        done = {
            (v.artifact_sha256, v.metric, v.reference_sha256 or "")
            for v in self.store.iter(MetricValue)
            if v.version == versions.get(v.metric, v.version)
        }
        work: list[tuple[Selection, Artifact]] = []
        for artifact in self._artifacts(inspections, renders, gates):
            reference = source_sha256(artifact) or ""
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
            with _timed(summary, f"metric {metric}"):
                for _, result in run_stage(
                    f"metric {metric}",
                    self.executor,
                    MeasureSource(metric),
                    by_source(artifacts),
                    jobs=self.jobs,
                    quiet=self.quiet,
                    weight=len,
                ):
                    if isinstance(result, BaseException):
                        summary.failures += 1
                        continue
                    for failure in result.failures:
                        summary.failures += 1
                        if not self.quiet:
                            err.print(f"[red]metric {metric} failed:[/] {failure}")
                    summary.metric_values += self.store.put_many(result.values, replace=True)

    def _artifacts(
        self,
        inspections: Mapping[str, Inspection],
        renders: Mapping[str, Render],
        gates: Mapping[str, GateResult],
    ) -> Iterator[Artifact]:
        """Each (artifact, task) pair whose slide was read, for the metrics."""
        for artifact in _artifacts(self.store, inspections, renders, gates):
            if artifact.tree is not None:
                yield artifact


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
) -> Iterator[Artifact]:
    tasks = {task.id: task for task in store.iter(Task)}
    known = metrics or {}
    seen: set[tuple[str, str]] = set()
    for attempt in store.iter(Attempt):
        sha = attempt.outputs.get(Output.SLIDE)
        task = tasks.get(attempt.task_id)
        if sha is None or sha not in inspections or (sha, attempt.task_id) in seen:
            continue
        seen.add((sha, attempt.task_id))
        inspection = inspections[sha]
        render = renders.get(sha)
        pages = tuple(store.objects.path(p.png_sha256) for p in render.pages) if render else ()
        references = {
            role: store.objects.path(asset.sha256) for role, asset in task.inputs.items()
        } if task else {}
        figure = task.input("figure") if task else None
        reference = figure.sha256 if figure else ""
        yield Artifact(
            path=store.objects.path(sha),
            sha256=sha,
            gate=gates.get(sha) or final_gate(inspection, render),
            family=task.family if task else FIGURE_TO_SLIDE,
            files={
                role: store.objects.path(out) for role, out in attempt.outputs.items()
            },
            structure=inspection.parsed(ObjectTree),
            pages=pages if all(p.is_file() for p in pages) else (),
            task=task,
            references={role: p for role, p in references.items() if p.is_file()},
            annotation=_annotation(store, task) if task else None,
            # values measured against no reference (the gate) hold for every task
            metrics={**known.get((sha, ""), {}), **known.get((sha, reference), {})},
        )


def load_artifacts(store: RunStore, *, renderer: str | None = None) -> list[Artifact]:
    """Every evaluated (artifact, task) pair of a run, in attempt order, for later stages.

    Each carries its final gate, object tree, rendering, task, source, parsed annotation and its
    metric values as ``{"metric.name": value}`` (those measured against the task's source, and
    the gate as ``gate.passed``). ``renderer`` picks the rendering (default: the one the last
    ``refig evaluate`` used).
    """
    chosen = json.loads(store.get_meta(_META_RENDERER) or "{}")
    name = renderer or chosen.get("name")
    settings = chosen.get("settings") if not renderer or renderer == chosen.get("name") else None
    inspections = {i.artifact_sha256: i for i in store.iter(Inspection) if i.inspector == INSPECTOR}
    renders: dict[str, Render] = {}
    if name:
        for render in store.iter(Render, renderer=name):
            if settings is None or render.settings == settings:
                renders.setdefault(render.artifact_sha256, render)
    metrics: dict[tuple[str, str], dict[str, float | None]] = {}
    for value in store.iter(MetricValue):
        key = (value.artifact_sha256, value.reference_sha256 or "")
        metrics.setdefault(key, {})[f"{value.metric}.{value.name}"] = value.value
    return list(_artifacts(store, inspections, renders, {}, metrics))


def default_metrics(registry: Registry) -> list[Selection]:
    """The metrics ``refig evaluate``/``check`` run when ``--metric`` is not given."""
    records = registry.records(PluginKind.METRIC)
    return [
        registry.resolve(PluginKind.METRIC, r.name)
        for r in records
        if isinstance(r, MetricRecord) and r.default
    ]


def select_metrics(registry: Registry, names: Iterable[str] | None) -> list[Selection]:
    """``--metric`` selectors resolved (unknown names exit 2), or the default metrics."""
    names = list(names or [])
    if not names:
        return default_metrics(registry)
    return [registry.resolve(PluginKind.METRIC, name) for name in names]
