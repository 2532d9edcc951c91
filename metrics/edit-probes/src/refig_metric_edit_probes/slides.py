"""The slide probes: edit copies of the artifact's slides, render them in one conversion, check.

Artifacts probed together whose slides render in the same context share that conversion
(:func:`shared_decks`); a slide renders the same in it as in a deck of its own.

- **move**: the node moves by :data:`MOVE_SHARE` of the slide's width and height (towards the side
  with room); glued connectors follow to the same connection sites, free lines stay. The moved
  node is drawn hidden, so near its new place the rendering shows only the lines' own ink.
  Passes when the node's old place no longer shows it (at most :data:`KEPT_MAX` of its ink
  stays) and every edge the rendering showed meeting it still does: each line with an end on
  the node showed ink in the band just outside the node's box near that end, or where a
  straight line from there to its far end leaves the box (:func:`meets`), and after the move
  shows ink near that end's new place that the slide without the node and its glued lines (the
  **delete** variant) lacks (:func:`pixels.drawn_near`), however the renderer routes it. A
  glued connector is there; a free line stayed behind.
- **relabel**: the label becomes half again as long. Passes when the text changed inside the
  node's box and nothing changed outside it (at most :data:`SPILL_SHARE` of the box's area).
- **delete**: the node and the lines glued to it go. Passes when at most :data:`KEPT_MAX` of the
  node's ink stays: a picture under native text keeps its box and label.
- **recolour**: the node's fill becomes :data:`RECOLOUR`. Passes when at least :data:`FILL_MIN`
  of the box shows the new colour and nothing changed outside it (not measurable when the box
  already showed that colour).
"""

from __future__ import annotations

import copy
import io
import math
import tempfile
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image
from refig.plugin import Renderer, RenderJob, RenderOutput
from refig_toolkit_pptx import ObjectTree, Package, PackageError, Rect, read_object_tree

from refig_metric_edit_probes import edits, pixels
from refig_metric_edit_probes.deck import Variant, context_digest, write_probe_deck
from refig_metric_edit_probes.nodes import Edge, Point, Target, choose_target
from refig_metric_edit_probes.outcome import Outcome, not_applicable

PROBES = ("move", "relabel", "delete", "recolour")
MOVE_SHARE = 0.15
KEPT_MAX = 0.25
SPILL_SHARE = 0.005
FILL_MIN = 0.3
RECOLOUR = (0xE0, 0x21, 0x8A)
#: A node with fewer ink pixels than this does not show in the rendering.
MIN_INK = 20
#: At most this many slides in a deck that several artifacts share (four artifacts of one slide
#: each): against the render stage's call in one process, decks of 1, 10, 20 and 40 pages cost
#: 1.16-1.21, 1.02-1.08, 0.99-1.04 and 1.09-1.11 (benchmarks/edit_probes/shared_decks.py); a
#: bigger deck loses the office's converting the next deck while the last is drawn, and one
#: conversion must end within the timeout.
MAX_DECK_PAGES = 20


class ProbeRenderError(RuntimeError):
    """The probe deck did not render."""


Check = Callable[
    [np.ndarray, np.ndarray, "Geometry", np.ndarray | None], tuple[bool | None, dict[str, Any]]
]


@dataclass
class Planned:
    """A probe whose variant is in the deck: its slide index in the deck and how to check it."""

    outcome: Outcome
    page: int
    base: int
    check: Check
    #: The page of the slide without the node and its glued lines (the delete variant's).
    without: int | None = None


@dataclass(frozen=True)
class Geometry:
    """Slide EMU to rendering pixels, and the node's boxes before and after a move."""

    target: Target
    delta: tuple[float, float]
    sx: float
    sy: float

    def box(self, rect: Rect, shift: tuple[float, float] = (0.0, 0.0)) -> pixels.Box:
        x, y = rect.x + shift[0], rect.y + shift[1]
        return (
            round(x * self.sx),
            round(y * self.sy),
            round((x + rect.w) * self.sx),
            round((y + rect.h) * self.sy),
        )

    @property
    def old(self) -> pixels.Box:
        return self.box(self.target.rect)

    @property
    def new(self) -> pixels.Box:
        return self.box(self.target.rect, self.delta)


def move_delta(tree: ObjectTree, rect: Rect) -> tuple[float, float]:
    """The move: a fixed share of the slide on each axis, towards the side with more room."""
    dx, dy = MOVE_SHARE * tree.slide_width, MOVE_SHARE * tree.slide_height
    right = tree.slide_width - rect.x - rect.w
    below = tree.slide_height - rect.y - rect.h
    return (dx if right >= rect.x else -dx), (dy if below >= rect.y else -dy)


def exit_point(start: Point, stop: Point, box: pixels.Box) -> Point | None:
    """Where the straight line from ``start`` to ``stop`` (pixels) first lies
    :data:`pixels.BAND_GAP` + 2 px outside the box; None when it never does."""
    x0, y0, x1, y1 = pixels.grow(box, pixels.BAND_GAP + 2)
    length = math.hypot(stop[0] - start[0], stop[1] - start[1])
    for step in range(math.ceil(length) + 1):
        t = step / length if length else 0.0
        x, y = start[0] + (stop[0] - start[0]) * t, start[1] + (stop[1] - start[1]) * t
        if not (x0 <= x < x1 and y0 <= y < y1):
            return x, y
    return None


def meets(image: np.ndarray, geo: Geometry, edge: Edge) -> bool:
    """Whether the rendering shows a line leaving the node's box from the edge's end: ink in the
    band just outside the box near that point (a line leaving outwards, however the renderer
    routes it), or, for a straight line that runs across the box to its far end, near where it
    leaves the box."""
    box = geo.old
    start = (edge.on_node[0] * geo.sx, edge.on_node[1] * geo.sy)
    if pixels.leaves(image, box, start):
        return True
    bent = (edge.line.geometry or "").startswith(("bentConnector", "curvedConnector"))
    stop = (edge.far[0] * geo.sx, edge.far[1] * geo.sy)
    crossing = None if bent else exit_point(start, stop, box)
    return crossing is not None and pixels.leaves(image, box, crossing)


def check_move(before: np.ndarray, after: np.ndarray, geo: Geometry,
               without: np.ndarray | None):
    share, count = pixels.kept(before, after, pixels.grow(geo.old, 2), pixels.grow(geo.new, 6))
    if share is None or count < MIN_INK:
        return None, {"why": "the node does not show in the rendering"}
    if without is None:
        return None, {"why": "no slide without the node to compare with"}
    drawn = [e for e in geo.target.edges if meets(before, geo, e)]
    moved = [((e.on_node[0] + geo.delta[0]) * geo.sx, (e.on_node[1] + geo.delta[1]) * geo.sy)
             for e in drawn]
    kept_on = [end for end in moved if pixels.drawn_near(after, without, end)]
    return share <= KEPT_MAX and len(kept_on) == len(drawn), {
        "ink_kept_at_old_place": round(share, 3),
        "edges_meeting_before": len(drawn),
        "edges_meeting_after": len(kept_on),
    }


def check_relabel(before: np.ndarray, after: np.ndarray, geo: Geometry, _: np.ndarray | None):
    inside = pixels.changed_inside(before, after, geo.old)
    outside = pixels.changed_outside(before, after, pixels.grow(geo.old, 3))
    (x0, y0, x1, y1) = geo.old
    allowed = max(30, SPILL_SHARE * (x1 - x0) * (y1 - y0))
    return inside >= MIN_INK and outside <= allowed, {
        "changed_inside": inside,
        "changed_outside": outside,
        "allowed_outside": round(allowed),
    }


def check_delete(before: np.ndarray, after: np.ndarray, geo: Geometry, _: np.ndarray | None):
    share, count = pixels.kept(before, after, pixels.grow(geo.old, 2))
    if share is None or count < MIN_INK:
        return None, {"why": "the node does not show in the rendering"}
    return share <= KEPT_MAX, {"ink_kept": round(share, 3), "ink_pixels": count}


def check_recolour(before: np.ndarray, after: np.ndarray, geo: Geometry, _: np.ndarray | None):
    if pixels.share_near(before, geo.old, RECOLOUR) >= FILL_MIN:
        return None, {"why": "the node already shows the probe's colour"}
    filled = pixels.share_near(after, geo.old, RECOLOUR)
    outside = pixels.changed_outside(before, after, pixels.grow(geo.old, 3))
    (x0, y0, x1, y1) = geo.old
    allowed = max(30, SPILL_SHARE * (x1 - x0) * (y1 - y0))
    return filled >= FILL_MIN and outside <= allowed, {
        "new_colour_share": round(filled, 3),
        "changed_outside": outside,
        "allowed_outside": round(allowed),
    }


def _hex(colour: tuple[int, int, int]) -> str:
    return "".join(f"{c:02X}" for c in colour)


def plan_slide(
    slide: int, tree: ObjectTree, xml: Any, variants: list[Variant], part: str
) -> tuple[list[Planned], list[Outcome], Geometry | None]:
    """Add one slide's unedited copy and its probe variants to ``variants``."""
    target = choose_target(tree)
    if target is None:
        reason = "the slide has no text-bearing shape to edit"
        return [], [not_applicable(p, reason, slide) for p in PROBES], None
    node = target.node
    assert node.id is not None
    base = len(variants)
    variants.append(Variant(part, copy.deepcopy(xml)))
    delta = move_delta(tree, target.rect)
    geometry = Geometry(target, delta, 1.0 / tree.slide_width, 1.0 / tree.slide_height)
    glued = [e.line.id for e in target.edges if e.glued and e.line.id is not None]
    def move(root: Any) -> None:
        edits.move(root, node.id, delta, target.edges)
        edits.hide(root, node.id)

    steps: dict[str, tuple[Callable[[Any], None], Check]] = {
        "move": (move, check_move),
        "relabel": (
            lambda root: edits.relabel(root, node.id, edits.longer_label(node.text)),
            check_relabel,
        ),
        "delete": (lambda root: edits.delete(root, [node.id, *glued]), check_delete),
        "recolour": (lambda root: edits.recolour(root, node.id, _hex(RECOLOUR)), check_recolour),
    }
    planned: list[Planned] = []
    skipped: list[Outcome] = []
    described = {
        "node": node.id,
        "name": node.name,
        "text": node.text[:80],
        "edges": len(target.edges),
        "glued": len(glued),
    }
    for probe, (edit, check) in steps.items():
        root = copy.deepcopy(xml)
        try:
            edit(root)
        except edits.EditError as exc:
            skipped.append(not_applicable(probe, str(exc), slide))
            continue
        variants.append(Variant(part, root))
        outcome = Outcome(probe, applicable=True, slide=slide, evidence=dict(described))
        planned.append(Planned(outcome, len(variants) - 1, base, check))
    pages = {item.outcome.probe: item.page for item in planned}
    for item in planned:
        item.without = pages.get("delete")
    return planned, skipped, geometry


def _pages(output: RenderOutput, expected: int) -> list[tuple[np.ndarray, bytes]]:
    """Every slide of a rendered probe deck as an RGB array and the PNG the renderer wrote."""
    if output.error is not None:
        raise ProbeRenderError(f"{output.error.kind}: {output.error.message}")
    if len(output.pages) != expected:
        raise ProbeRenderError(f"{len(output.pages)} pages for {expected} slides")
    images = []
    for page in output.pages:
        png = page.read_bytes()
        with Image.open(io.BytesIO(png)) as image:
            images.append((np.asarray(image.convert("RGB")), png))
    return images


@dataclass
class ProbeDeck:
    """One artifact's probes as planned: those that cannot apply, those whose variants are the
    slides ``variants`` (none when no probe applies), each probed slide's geometry, and the
    digest of the context its slides render in (None when they cannot share a deck or are
    probed alone)."""

    skipped: list[Outcome]
    planned: list[Planned]
    geometries: dict[int, Geometry]
    variants: list[Variant]
    context: str | None

    def judged(self, images: Sequence[tuple[np.ndarray, bytes]]) -> list[Outcome]:
        """Every probe's outcome, the planned ones checked on the rendered variants."""
        outcomes = list(self.skipped)
        for item in self.planned:
            (before, before_png), (after, after_png) = images[item.base], images[item.page]
            item.outcome.pictures = {"before": before_png, "after": after_png}
            unit = self.geometries[item.outcome.slide or 0]  # scales per EMU of the slide
            geo = replace(unit, sx=unit.sx * before.shape[1], sy=unit.sy * before.shape[0])
            without = None if item.without is None else images[item.without][0]
            passed, evidence = item.check(before, after, geo, without)
            item.outcome.passed = passed
            item.outcome.evidence |= evidence
            if passed is None:
                item.outcome.reason = evidence.pop("why", "not measurable")
            outcomes.append(item.outcome)
        return outcomes


@dataclass(frozen=True)
class Probed:
    """One artifact to probe: its deck, the slides to probe (0-based), and the object trees of
    those slides already read (by slide index: the inspect stage's; others are read here)."""

    path: Path
    slides: Sequence[int]
    trees: Mapping[int, ObjectTree] = field(default_factory=dict)


def plan_deck(
    package: Package, slide_indices: Sequence[int], trees: Mapping[int, ObjectTree],
    *, together: bool,
) -> ProbeDeck:
    """Plan every slide probe on the given slides (0-based) of the package, reading the object
    tree of each slide not in ``trees``; its context only when it is probed ``together`` with
    other artifacts (alone it shares no deck)."""
    skipped: list[Outcome] = []
    planned: list[Planned] = []
    variants: list[Variant] = []
    geometries: dict[int, Geometry] = {}
    refs = package.slides()
    for index in slide_indices:
        part = refs[index].part
        tree = trees.get(index) or read_object_tree(package, part)
        more, less, geometry = plan_slide(index, tree, package.xml(part), variants, part)
        planned += more
        skipped += less
        if geometry is not None:
            geometries[index] = geometry
    context = None
    if planned and together:
        context = context_digest(package, sorted({v.source_part for v in variants}))
    return ProbeDeck(skipped, planned, geometries, variants if planned else [], context)


def shared_decks(plans: Sequence[tuple[Package, ProbeDeck]]) -> list[list[int]]:
    """The plans (by index) that share a deck: those with the same context, in order, at most
    :data:`MAX_DECK_PAGES` pages a deck (a plan alone may have more); a plan with no context
    alone; plans with no variant in none."""
    groups: list[list[int]] = []
    open_groups: dict[str, list[int]] = {}
    pages: dict[int, int] = {}
    for number, (_, plan) in enumerate(plans):
        if not plan.variants:
            continue
        group = open_groups.get(plan.context) if plan.context else None
        if group is None or pages[id(group)] + len(plan.variants) > MAX_DECK_PAGES:
            group = []
            groups.append(group)
            pages[id(group)] = 0
            if plan.context:
                open_groups[plan.context] = group
        group.append(number)
        pages[id(group)] += len(plan.variants)
    return groups


def _render_groups(
    groups: Sequence[Sequence[int]],
    plans: Sequence[tuple[Package, ProbeDeck]],
    renderer: Renderer,
    folder: Path,
) -> list[list[tuple[np.ndarray, bytes]] | Exception]:
    """Each group's deck written and rendered, all in one call of the renderer (its batches;
    calls from the engine's workers for other sources run at once, each in a warm office): per
    group its pages, or the error that stopped them."""
    found: list[list[tuple[np.ndarray, bytes]] | Exception] = []
    jobs: dict[int, RenderJob] = {}
    for number, group in enumerate(groups):
        sources = [(plans[i][0], plans[i][1].variants) for i in group]
        try:
            deck = write_probe_deck(sources, folder / f"probes-{number}.pptx")
        except PackageError as exc:
            found.append(exc)
            continue
        jobs[number] = RenderJob(deck, pages="all", hidden=True)
        found.append(ProbeRenderError("not rendered"))
    outputs = renderer.render(list(jobs.values()), folder) if jobs else []
    for number, output in zip(jobs, outputs, strict=True):
        try:
            found[number] = _pages(output, sum(len(plans[i][1].variants) for i in groups[number]))
        except ProbeRenderError as exc:
            found[number] = exc
    return found


def probe_many(items: Sequence[Probed], renderer: Renderer) -> list[list[Outcome] | Exception]:
    """Every slide probe of several artifacts, their
    variants rendered in one call of the renderer: the artifacts whose slides render in the
    same context share a deck (:func:`shared_decks`), so LibreOffice opens and exports one
    document for them. A shared deck that does not render is rendered again as one deck an
    artifact, so an artifact's verdict never depends on another's. Per artifact its outcomes,
    or the error that stopped its probes."""
    results: list[list[Outcome] | Exception | None] = [None] * len(items)
    with tempfile.TemporaryDirectory(prefix="refig-probes-") as tmp, ExitStack() as stack:
        plans: list[tuple[Package, ProbeDeck]] = []
        numbers: list[int] = []
        for number, item in enumerate(items):
            try:
                package = stack.enter_context(Package.open(item.path))
                plans.append((package, plan_deck(package, item.slides, item.trees,
                                                 together=len(items) > 1)))
                numbers.append(number)
            except PackageError as exc:
                results[number] = exc
        groups = shared_decks(plans)
        for index, (_, plan) in enumerate(plans):
            if not plan.variants:
                results[numbers[index]] = plan.judged([])
        alone: list[list[int]] = []
        for group, pages in zip(groups, _render_groups(groups, plans, renderer, Path(tmp)),
                                strict=True):
            if isinstance(pages, Exception) and len(group) > 1:
                alone += [[index] for index in group]
                continue
            start = 0
            for index in group:
                plan = plans[index][1]
                results[numbers[index]] = (
                    pages if isinstance(pages, Exception)
                    else plan.judged(pages[start : start + len(plan.variants)])
                )
                start += len(plan.variants)
        if alone:
            for [index], pages in zip(alone, _render_groups(alone, plans, renderer, Path(tmp)),
                                      strict=True):
                results[numbers[index]] = (
                    pages if isinstance(pages, Exception) else plans[index][1].judged(pages)
                )
    return [r if r is not None else ProbeRenderError("not probed") for r in results]


def probe_slides(
    path: Path, slide_indices: Sequence[int], renderer: Renderer,
    trees: Mapping[int, ObjectTree] | None = None,
) -> list[Outcome]:
    """Run every slide probe on the given slides (0-based) of the deck at ``path`` (``trees``:
    as :class:`Probed` takes them)."""
    [result] = probe_many([Probed(path, slide_indices, trees or {})], renderer)
    if isinstance(result, Exception):
        raise result
    return result
