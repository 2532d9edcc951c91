"""The stage callables of the engine: inspect, render (batched), measure, and the final gate.

Each is a picklable callable mapped over work items by an executor (threads by default, Ray when
selected); it finds its plugins (the task family, the renderer, the metric) by name in this
process (:mod:`refig.engine.plugins`). Whose rules apply is the item's task family's: its gate,
structure, render job and gate folding.
"""

from __future__ import annotations

import hashlib
import math
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import pairwise
from pathlib import Path
from typing import Any, TypeVar

from refig.console import err, track
from refig.engine.plugins import family_for, plugin, renderer_for
from refig.image_headers import HeaderError, image_size
from refig.metric_values import source_sha256
from refig.models import ErrorInfo, GateResult, Inspection, MetricValue, Page, Render, Task
from refig.protocols import Artifact, Executor, Metric, Renderer, RenderJob, RenderOutput
from refig.records import PluginKind

T = TypeVar("T")
R = TypeVar("R")

#: The final gate is stored as a metric value ``gate/passed`` (1 or 0) with the reason in detail.
GATE_METRIC = "gate"
#: At most this many files go to one renderer call (one warm LibreOffice process converts them).
MAX_RENDER_BATCH = 32
#: A worker (one more LibreOffice) is given at least this many files: starting an office costs
#: about the CPU of converting eight to ten slides, so a second one for two files costs more
#: than it saves, and on a busy machine it costs wall time too.
MIN_FILES_PER_WORKER = 8


# --- stage callables ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Item:
    """One artifact file to evaluate: its hash, where its bytes are, and its task family; for a
    realiser that needs them (a program's data files), a task it was made for and that task's
    visible inputs as (role, path) pairs."""

    sha256: str
    path: str
    family: str
    task: Task | None = None
    inputs: tuple[tuple[str, str], ...] = ()
    #: What its rendering is stored under (:func:`render_key`); the artifact's hash when empty.
    render_key: str = ""

    @property
    def key(self) -> str:
        """The key of this item's rendering and final gate."""
        return self.render_key or self.sha256


def render_key(sha256: str, family: str, task: Task | None) -> str:
    """The key a rendering of artifact ``sha256`` made for ``task`` is stored under: the
    artifact's hash, or, when the family has a render context (``render_context(task)``:
    everything besides the file that changes its rendering, e.g. a program's inputs, size,
    language and capture protocol), the hash of both, so one program handed in for two tasks
    is executed for each with its own inputs."""
    extra = family_for(family).render_context(task) if task is not None else ""
    return hashlib.sha256(f"{sha256}\n{extra}".encode()).hexdigest() if extra else sha256


def inspect_item(item: Item) -> Inspection:
    """The family's structural gate and structure of one file."""
    family = family_for(item.family)
    started = time.monotonic()
    gate, structure = family.inspect(Path(item.path), item.task)
    return Inspection(
        artifact_sha256=item.sha256,
        inspector=family.inspector,
        gate=gate,
        structure=None if structure is None else structure.model_dump(mode="json"),
        seconds=time.monotonic() - started,
    )


@dataclass(frozen=True)
class Rendered:
    """One file's rendering: the record, and the PNG bytes (so remote workers can return them)."""

    render: Render
    pngs: tuple[bytes, ...]
    #: What the renderer printed (an interpreter's stdout and stderr), stored as an object.
    log: bytes | None = None


def _rendered(item: Item, output: RenderOutput, renderer: Renderer, name: str) -> Rendered:
    """The stored record of one output; a PNG that does not open counts as a failed render."""
    pngs: list[bytes] = []
    pages: list[Page] = []
    error = output.error
    try:
        for index, path in enumerate(output.pages):
            data = path.read_bytes()
            width, height = image_size(data)
            pngs.append(data)
            pages.append(Page(index=index, png_sha256=hashlib.sha256(data).hexdigest(),
                              width_px=width, height_px=height))
    except (OSError, HeaderError) as exc:
        pngs, pages = [], []
        error = ErrorInfo(kind="render_failed", message=f"unreadable PNG: {exc}")
    if not pages and error is None:
        error = ErrorInfo(kind="render_failed", message="the renderer gave no PNG")
    render = Render(
        artifact_sha256=item.key,
        renderer=name,
        settings=renderer.settings,
        pages=tuple(pages),
        renderer_version=renderer.version,
        fonts=tuple(renderer.fonts),
        seconds=output.seconds,
        error=error,
        log_sha256=hashlib.sha256(output.log).hexdigest() if output.log else None,
    )
    return Rendered(render, tuple(pngs), output.log or None)


def _render_job(item: Item) -> RenderJob:
    """The family's render job for an item, with the task's visible inputs beside it."""
    job = family_for(item.family).render_job(Path(item.path), item.task)
    if item.inputs and not job.inputs:
        job = replace(job, inputs={role: Path(path) for role, path in item.inputs})
    return job


@dataclass(frozen=True)
class RenderBatch:
    """Renders a batch of files with the named renderer; picklable for remote executors."""

    renderer: str

    def __call__(self, batch: Sequence[Item]) -> list[Rendered]:
        renderer = renderer_for(self.renderer)
        jobs = [_render_job(item) for item in batch]
        with tempfile.TemporaryDirectory(prefix="refig-render-") as tmp:
            outputs = renderer.render(jobs, Path(tmp))
            return [
                _rendered(item, output, renderer, self.renderer)
                for item, output in zip(batch, outputs, strict=True)
            ]


@dataclass(frozen=True)
class ComputeMetric:
    """Runs the named metric on one artifact; picklable for remote executors."""

    metric: str

    def __call__(self, artifact: Artifact) -> list[MetricValue]:
        metric: Metric = plugin(PluginKind.METRIC, self.metric)
        return list(metric.compute(artifact))


@dataclass(frozen=True)
class Measured:
    """The values a metric gave for a group of artifacts, and one line per artifact it failed on."""

    values: list[MetricValue]
    failures: list[str]


@dataclass(frozen=True)
class MeasureSource:
    """Runs the named metric on the artifacts of one source; picklable for remote executors.

    One work item per source means what a metric computes once per source (its OCR, its
    matching signature) is computed once, by one worker, while the sources spread over all.
    """

    metric: str

    def __call__(self, artifacts: Sequence[Artifact]) -> Measured:
        metric: Metric = plugin(PluginKind.METRIC, self.metric)
        values: list[MetricValue] = []
        failures: list[str] = []
        metric.prepare(artifacts)  # work shared by the group (one conversion for all, say)
        for artifact in artifacts:
            try:
                values.extend(metric.compute(artifact))
            except Exception as exc:  # one artifact's failure must not cost its neighbours
                failures.append(f"{artifact.sha256[:12]}: {type(exc).__name__}: {exc}")
        return Measured(values, failures)


def by_source(artifacts: Iterable[Artifact]) -> list[list[Artifact]]:
    """Artifacts grouped by what their metrics measure against: the task family's reference
    key (a slide family's: the source figure), else the source's hash; the rest alone."""
    groups: dict[tuple[str, str], list[Artifact]] = {}
    for artifact in artifacts:
        task = artifact.task
        reference = family_for(artifact.family).reference_key(task) if task is not None else ""
        key = reference or source_sha256(artifact) or f"artifact:{artifact.sha256}"
        groups.setdefault((artifact.family, key), []).append(artifact)
    return list(groups.values())


def final_gate(inspection: Inspection, render: Render | None, family: str) -> GateResult:
    """g(P): the structural verdict folded with the render's outcome, by the family's rules."""
    return family_for(family).fold_gate(inspection.gate, render)


def gate_value(sha256: str, gate: GateResult, render: Render | None,
               inspector: str, reference: str | None = None) -> MetricValue:
    """The final gate as a stored metric value (1 passed, 0 failed; reason in detail), under
    the task's ``reference`` when the rendering depends on the task (:func:`render_key`)."""
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
        version=inspector,
        detail=detail,
        reference_sha256=reference or None,
    )


def render_batches(items: Sequence[Item], jobs: int) -> list[list[Item]]:
    """Batches that keep up to ``jobs`` workers busy, each worker with enough files to pay for
    its office's start (:data:`MIN_FILES_PER_WORKER`), without a cold start per file.

    The batches are as many as :data:`MAX_RENDER_BATCH` needs, rounded up to a multiple of the
    workers, and of sizes within one file of each other, so every worker gets the same share:
    cut 32 at a time, 100 files were 32, 32, 32 and 4, and one office idled while the other
    converted a whole batch alone at the end of the stage.
    """
    if not items:
        return []
    workers = max(1, min(jobs, len(items) // MIN_FILES_PER_WORKER))
    count = workers * math.ceil(len(items) / (workers * MAX_RENDER_BATCH))
    bounds = [len(items) * index // count for index in range(count + 1)]
    return [list(items[start:end]) for start, end in pairwise(bounds)]


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

        def count_elsewhere() -> None:  # what a claimed stage found done by another process
            tracker.done_elsewhere(executor.elsewhere - tracker.elsewhere)

        for _ in range(min(max(1, jobs), len(items))):
            begin()
        for item, result in executor.map(fn, items, jobs=jobs):
            ok = not isinstance(result, BaseException)
            for _ in range(weight(item)):
                tracker.finish(ok)
            count_elsewhere()
            begin()
            if not ok and not quiet:
                err.print(f"[red]{description} failed:[/] {type(result).__name__}: {result}")
            yield item, result
        count_elsewhere()


