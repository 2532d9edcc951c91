"""The ``edit-probes`` metric: the share of applicable probes an artifact passes."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from typing import Any

from lxml import etree
from refig.plugin import (
    Artifact,
    Metric,
    MetricValue,
    Renderer,
    ValueMaker,
    make_plugin,
    renderer_for,
    unavailable,
)
from refig_toolkit_pptx import ObjectTree, Package, PackageError, object_tree

from refig_metric_edit_probes.code import probe_program
from refig_metric_edit_probes.outcome import Outcome, score
from refig_metric_edit_probes.slides import Probed, ProbeRenderError, probe_many, probe_slides

DECK_EDIT = "deck-edit"
FIGURE_TO_CODE = "figure-to-code"

METRIC = "edit-probes"
NAMES = ("probe_score", "probes_applicable")
#: At most this many edited slides of a deck are probed (the first ones).
MAX_SLIDES = 4


def _canonical(package: Package, part: str) -> bytes:
    return etree.tostring(package.xml(part), method="c14n")


def edited_slides(path: Any, original: Any) -> list[int]:
    """The slides of a deck whose XML differs from the original's slide at the same place (all
    of them when there is no original), the first :data:`MAX_SLIDES`."""
    with Package.open(path) as package:
        parts = [ref.part for ref in package.slides()]
        if original is None:
            return list(range(min(len(parts), MAX_SLIDES)))
        with Package.open(original) as before:
            old = [_canonical(before, ref.part) for ref in before.slides()]
        changed = [
            i
            for i, part in enumerate(parts)
            if i >= len(old) or _canonical(package, part) != old[i]
        ]
    return changed[:MAX_SLIDES]


def _trees(artifact: Artifact) -> dict[int, ObjectTree]:
    """The object tree the inspect stage read, by slide: the one slide of a family whose
    structure is a slide's tree (figure-to-slide's), so it is not read again."""
    tree = object_tree(artifact)
    return {} if tree is None else {0: tree}


class ProbeInputError(ValueError):
    """The artifact lacks what its probes need (a program's stored image)."""


class EditProbes(Metric):
    """Slide probes on the figure-to-slide slide or the edited slides of a deck; code probes on
    a figure-to-code program."""

    version = "5"  # 2: keeps each slide probe's before and after renderings; 3: a program's too;
    # 4: the probe decks draw shapes other than the node without effects (the same verdicts);
    # 5: no shape keeps its effects, the moved node is hidden and its lines' ink is read against
    # the delete variant (the same verdicts); artifacts of one context share a deck

    def __init__(
        self, renderer: str = "libreoffice", code_renderer: str = "program", width: int = 800
    ):
        self.slide_renderer = renderer
        self.code_renderer = code_renderer
        self.width = int(width)
        self._lock = threading.Lock()
        self._slide_renderer: Renderer | None = None
        #: Outcomes probed by :meth:`prepare`, by (artifact hash, path), until computed.
        self._prepared: dict[tuple[str, str], list[Outcome] | Exception] = {}

    def renderer_name(self, family: str) -> str:
        """The renderer the family's probes use."""
        return self.code_renderer if family == FIGURE_TO_CODE else self.slide_renderer

    def renderer(self, family: str = "") -> Renderer:
        """The renderer of the family's probes, warm between artifacts. Programs run in this
        process's realiser (the render stage's, with its warm interpreters); probe decks are
        rendered by the same slide renderer at ``width`` pixels (the checks need no more, and
        rasterising five pages at the render stage's width cost most of a probe)."""
        if family == FIGURE_TO_CODE:
            return renderer_for(self.code_renderer)
        with self._lock:
            if self._slide_renderer is None:
                self._slide_renderer = make_plugin("renderer", self.slide_renderer,
                                                   width=self.width)
            return self._slide_renderer

    def close(self) -> None:
        """End the probe decks' renderer (the engine calls this when it closes its plugins)."""
        with self._lock:
            if self._slide_renderer is not None:
                self._slide_renderer.close()
                self._slide_renderer = None

    def _slides(self, artifact: Artifact) -> list[int]:
        """The slides probed: figure-to-slide's one, a deck edit's edited ones."""
        if artifact.family == DECK_EDIT:
            return edited_slides(artifact.path, artifact.references.get("deck"))
        return [0]

    def prepare(self, artifacts: Sequence[Artifact]) -> None:
        """Probe the slides of a group of artifacts (the engine's artifacts of one source) in
        one call of the renderer, those whose slides render in the same context in one shared
        deck (:func:`~refig_metric_edit_probes.slides.probe_many`). :meth:`compute` takes the
        outcomes kept here; an artifact whose deck could not be made is probed alone there."""
        slides = [a for a in artifacts if a.family != FIGURE_TO_CODE and a.gate.passed]
        if len(slides) < 2:
            return
        items = []
        for artifact in slides:
            try:
                items.append((artifact, self._slides(artifact)))
            except PackageError:
                continue  # compute reports it
        found = probe_many([Probed(a.path, s, _trees(a)) for a, s in items], self.renderer())
        with self._lock:
            for (artifact, _), result in zip(items, found, strict=True):
                self._prepared[(artifact.sha256, str(artifact.path))] = result

    def outcomes(self, artifact: Artifact) -> list[Outcome]:
        """Every probe's outcome for the artifact (kept by :meth:`prepare`, or probed now)."""
        if artifact.family == FIGURE_TO_CODE:
            if artifact.render is None:
                raise ProbeInputError("the program has no stored image")
            return probe_program(
                artifact.path,
                artifact.render,
                artifact.task,
                artifact.references,
                self.renderer(FIGURE_TO_CODE),
            )
        with self._lock:
            prepared = self._prepared.pop((artifact.sha256, str(artifact.path)), None)
        if isinstance(prepared, Exception):
            raise prepared
        if prepared is not None:
            return prepared
        return probe_slides(artifact.path, self._slides(artifact), self.renderer(),
                            _trees(artifact))

    def compute(self, artifact: Artifact) -> Iterator[MetricValue]:
        make = ValueMaker(artifact, METRIC, self.version)
        if not artifact.gate.passed:
            yield from make.missing(
                NAMES, unavailable("no editable file", artifact), gate_reason=artifact.gate.reason
            )
            return
        try:
            outcomes = self.outcomes(artifact)
        except (PackageError, ProbeRenderError, ProbeInputError) as exc:
            yield from make.missing(NAMES, f"the probes could not run: {exc}")
            return
        value, applicable = score(outcomes)
        records = [o.record() for o in outcomes]
        pictures = dict.fromkeys(png for o in outcomes for png in o.pictures.values())
        passed = sum(1 for o in outcomes if o.passed)
        renderer = self.renderer(artifact.family)
        yield make.value(
            "probe_score",
            value,
            passed=passed,
            applicable=applicable,
            probes=records,
            renderer=self.renderer_name(artifact.family),
            settings=renderer.settings,
            reason=None if value is not None else "no probe applies",
            objects=tuple(pictures),
        )
        yield make.value("probes_applicable", applicable)
