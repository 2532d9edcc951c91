"""What the rating page can show: per task x configuration, the family's labelled images.

A task x configuration is rated from the attempt the report scores when its artifact passed the
gate and was rendered. The axes and ranges come from the task family's rubric (integers
``0..max`` per axis); the images from the family's optional ``rating_page(artifact)`` (deck-edit:
original, target and edited renderings slide by slide, selected slides first), else from the
evidence its judges see (figure-to-code: the reference image, then the generated one). So a
third-party family gets a rating page without code of its own.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from refig.console import track
from refig.engine.plugins import family_for
from refig.errors import RefigError
from refig.protocols import Artifact, TaskFamily
from refig.rubric import load_rubric
from refig.store import RunStore, sha256_file

from refig_toolkit_analysis.annotation.candidates import image_type, showable


@dataclass(frozen=True)
class RatingView:
    """One screen of images shown together (a slide of three decks; reference and generated)."""

    title: str
    images: tuple[tuple[str, Path], ...]
    #: Chosen by the family as where the change is (shown first, marked on the page).
    selected: bool = False


@dataclass(frozen=True)
class RatingPage:
    """What a family shows a rater of one artifact: a brief (the instruction) and its views."""

    brief: str
    views: tuple[RatingView, ...]


@dataclass(frozen=True)
class Axis:
    """A rubric axis as a rater scores it: whole points ``0..max``."""

    id: str
    title: str
    max: int


@dataclass(frozen=True)
class RatingItem:
    """One task x configuration to rate; images by content hash, never a configuration name."""

    task_id: str
    config_id: str
    artifact: str
    cluster: str
    rubric: str
    axes: tuple[Axis, ...]
    brief: str
    #: Each view as (title, selected, ((label, sha256), ...)).
    views: tuple[tuple[str, bool, tuple[tuple[str, str], ...]], ...]

    @property
    def key(self) -> tuple[str, str]:
        return self.task_id, self.config_id


@dataclass
class RatingItems:
    """Every ratable item, the images they show, and what was left out and why."""

    items: list[RatingItem]
    images: dict[str, tuple[Path, str]] = field(default_factory=dict)
    skipped: Counter[str] = field(default_factory=Counter)
    results: int = 0

    def why_empty(self) -> RefigError:
        """The error to show when nothing can be rated."""
        if self.results == 0:
            return RefigError("nothing to rate: the run has no attempts yet",
                              fix="start one with `refig run --suite DIR ... --out RUN`")
        left_out = ", ".join(f"{n} {why}" for why, n in sorted(self.skipped.items()))
        return RefigError(
            f"nothing to rate: no task x configuration passed the gate with images to show "
            f"({self.results} results; left out: {left_out or 'none'})",
            fix="run `refig evaluate RUN` (it inspects, renders and gates every artifact)")


def rating_page(family: TaskFamily, artifact: Artifact) -> RatingPage:
    """The family's ``rating_page`` when it has one, else its judges' images in one view."""
    page: RatingPage | None = family.rating_page(artifact)
    if page is not None:
        return page
    brief = (artifact.task.instruction if artifact.task else None) or ""
    return RatingPage(brief, (RatingView("", family.evidence(artifact).images, True),))


def rubric_axes(family_name: str) -> tuple[str, tuple[Axis, ...]]:
    """The family rubric's ``name@version`` and its axes as integer rating scales."""
    rubric = load_rubric(family=family_name)
    return (f"{rubric.name}@{rubric.version}",
            tuple(Axis(a.id, a.title, int(a.max)) for a in rubric.axes))


def load_rating_items(store: RunStore, *, quiet: bool = True) -> RatingItems:
    """Read a run and collect every ratable task x configuration (progress unless ``quiet``:
    deck-edit's page compares every slide of three decks, a few seconds a case)."""
    found = RatingItems(items=[])
    data, shown = showable(store, found.skipped)
    found.results = len(data.outcomes)
    hashes: dict[Path, str] = {}
    scales = {name: rubric_axes(name) for name in sorted({a.family for _, _, a in shown})}
    pages = []
    with track("preparing the rating pages", len(shown), quiet=quiet) as tracker:
        for _, _, artifact in shown:
            pages.append(rating_page(family_for(artifact.family), artifact))
            tracker.finish()
    for (task_id, config_id, artifact), page in zip(shown, pages, strict=True):
        family_name = artifact.family
        views = []
        for view in page.views:
            labelled = []
            for label, path in view.images:
                if path not in hashes:
                    kind = image_type(path)
                    if kind is None:
                        continue
                    hashes[path] = sha256_file(path)
                    found.images[hashes[path]] = (path, kind)
                labelled.append((label, hashes[path]))
            if labelled:
                views.append((view.title, view.selected, tuple(labelled)))
        if not views:
            found.skipped["have no images to show"] += 1
            continue
        rubric, axes = scales[family_name]
        found.items.append(RatingItem(task_id, config_id, artifact.sha256, data.cluster(task_id),
                                      rubric, axes, page.brief, tuple(views)))
    return found
