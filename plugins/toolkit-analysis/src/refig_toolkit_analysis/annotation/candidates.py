"""What the annotation page can show: per task, each configuration's gate-passing rendering.

A task x configuration is shown from the attempt the report scores (the latest succeeded one,
:mod:`..analysis.rundata`) when its artifact passed the gate and has a rendering in the object
store. The rendering and object audit are the ones the judges saw (``load_artifacts``); a run
evaluated without the standard inspector falls back to any stored rendering of the artifact.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path

from refig.context import RunContext
from refig.engine.plugins import family_for, registry
from refig.engine.runs import run_family
from refig.errors import RefigError
from refig.evaluation import load_artifacts
from refig.models import GateResult
from refig.protocols import Artifact, TaskFamily
from refig.store import RunStore
from refig_toolkit_pptx.objects import ObjectTree

from refig_toolkit_analysis.analysis.rundata import Outcome, RunData

#: Content types by leading bytes: the image formats every browser shows.
_IMAGE_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"BM", "image/bmp"),
)


def image_type(path: Path) -> str | None:
    """The content type of a browser-viewable image file, from its first bytes (None otherwise)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(16)
    except OSError:
        return None
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return next((kind for magic, kind in _IMAGE_MAGIC if head.startswith(magic)), None)


@dataclass(frozen=True)
class Side:
    """One configuration's result on one task, as the page shows it (never with its name)."""

    config_id: str
    artifact: str
    png_sha256: str
    audit: str


@dataclass
class Candidates:
    """Per task, the sides that can be shown; plus what was left out and why."""

    sides: dict[str, list[Side]]
    sources: dict[str, str | None]
    clusters: dict[str, str]
    configs: list[str]
    images: dict[str, str] = field(default_factory=dict)
    skipped: Counter[str] = field(default_factory=Counter)
    results: int = 0
    #: Whether the audits carry derived verdicts (recorded with every vote).
    verdicts: bool = False

    def why_empty(self) -> RefigError:
        """The error to show when no task has two sides to compare."""
        fix = "run `refig evaluate RUN` (it inspects, renders and gates every artifact)"
        if self.results == 0:
            return RefigError(
                "nothing to annotate: the run has no attempts yet",
                fix="start one with `refig run --suite DIR ... --out RUN`",
            )
        if len(self.configs) < 2:
            return RefigError(
                f"nothing to annotate: the run has one configuration ({', '.join(self.configs)});"
                " a comparison needs two",
                fix="run a second configuration into the same run directory",
            )
        left_out = ", ".join(f"{n} {why}" for why, n in sorted(self.skipped.items()))
        shown = sum(len(s) for s in self.sides.values())
        return RefigError(
            f"nothing to annotate: no task has gate-passing renderings from two configurations "
            f"({self.results} task x configuration results: {shown} can be shown; "
            f"left out: {left_out or 'none'})",
            fix=fix,
        )


def annotation_audit(family: TaskFamily, artifact: Artifact, *, verdicts: bool) -> str:
    """The audit shown under a side: the family's ``annotation_audit`` (counts by kind, derived
    verdicts only when asked; by default the text its judges are given)."""
    return family.annotation_audit(artifact, verdicts=verdicts)


def shown_artifact(store: RunStore, data: RunData, judged: dict[tuple[str, str], Artifact],
                   task_id: str, outcome: Outcome) -> Artifact:
    """The artifact as its judges saw it (``load_artifacts``), else rebuilt from the run's records
    (a run evaluated without the standard inspector): its gate, tree, metrics, first rendering."""
    sha = outcome.artifact or ""
    artifact = judged.get((sha, task_id))
    if artifact is not None and artifact.render is not None:
        return artifact
    render = data.render(sha, task_id)
    pages = (store.objects.path(render.png_sha256),) if render and render.png_sha256 else ()
    if artifact is not None:
        return replace(artifact, pages=pages)
    inspection = outcome.inspection
    task = data.tasks.get(task_id)
    figure = task.input("figure") if task is not None else None
    return Artifact(
        path=store.objects.path(sha), sha256=sha, family=task.family if task else run_family(store),
        gate=inspection.gate if inspection else GateResult(passed=True),
        structure=inspection.parsed(ObjectTree) if inspection else None,
        pages=pages, task=task,
        references={"figure": store.objects.path(figure.sha256)} if figure else {},
        metrics={f"{metric}.{name}": value.value
                 for (metric, name), value in outcome.values.items()},
    )


def showable(store: RunStore, skipped: Counter[str]
             ) -> tuple[RunData, list[tuple[str, str, Artifact]]]:
    """The run's data and, per gate-passing task x configuration (sorted), the artifact as its
    judges saw it; the others are counted in ``skipped`` by reason."""
    data = RunData.load(store)
    artifacts = load_artifacts(RunContext.of(registry(), store)) if data.outcomes else []
    judged = {(a.sha256, a.task.id): a for a in artifacts if a.task is not None}
    shown = []
    for (task_id, config_id), outcome in sorted(data.outcomes.items()):
        if not outcome.evaluated:
            skipped["not evaluated yet"] += 1
        elif not outcome.passed or outcome.artifact is None:
            skipped["failed the gate"] += 1
        else:
            shown.append((task_id, config_id,
                          shown_artifact(store, data, judged, task_id, outcome)))
    return data, shown


def load_candidates(store: RunStore, *, verdicts: bool = False) -> Candidates:
    """Read a run and collect every showable side, with the reasons others were left out.

    Audits are counts by kind; ``verdicts`` adds the derived ones (pasted, flattened, recall).
    """
    found = Candidates(
        sides=defaultdict(list),
        sources={},
        clusters={},
        configs=[],
        verdicts=verdicts,
    )
    data, shown = showable(store, found.skipped)
    found.configs, found.results = list(data.config_order), len(data.outcomes)
    for task_id, config_id, artifact in shown:
        png = artifact.render.name if artifact.render is not None else None
        kind = image_type(store.objects.path(png)) if png else None
        if png is None or kind is None:
            found.skipped["have no rendering"] += 1
            continue
        found.images[png] = kind
        task = data.tasks.get(task_id)
        audit = annotation_audit(family_for(task.family if task else run_family(store)), artifact,
                                 verdicts=verdicts)
        found.sides[task_id].append(Side(config_id, artifact.sha256, png, audit))
    for task_id in found.sides:
        task = data.tasks.get(task_id)
        figure = task.input("figure") if task is not None else None
        source = figure.sha256 if figure is not None else None
        kind = image_type(store.objects.path(source)) if source else None
        found.sources[task_id] = source if kind else None
        if source and kind:
            found.images[source] = kind
        found.clusters[task_id] = data.cluster(task_id)
    found.sides = dict(found.sides)
    return found
