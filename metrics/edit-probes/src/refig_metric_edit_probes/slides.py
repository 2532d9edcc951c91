"""The slide probes: edit copies of the artifact's slides, render them in one conversion, check.

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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image
from refig.plugin import Renderer, RenderJob, RenderOutput
from refig_toolkit_pptx import ObjectTree, Package, PackageError, Rect, read_object_tree

from refig_metric_edit_probes import edits, pixels
from refig_metric_edit_probes.deck import Variant, write_probe_deck
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
    slides of ``deck`` (None when none applies), and each probed slide's geometry."""

    skipped: list[Outcome]
    planned: list[Planned]
    geometries: dict[int, Geometry]
    deck: Path | None
    pages: int

    def judged(self, images: Sequence[tuple[np.ndarray, bytes]]) -> list[Outcome]:
        """Every probe's outcome, the planned ones checked on the deck's rendered pages."""
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


def plan_deck(path: Path, slide_indices: Sequence[int], out: Path) -> ProbeDeck:
    """Plan every slide probe on the given slides (0-based) of the deck at ``path`` and write
    their variants as one deck at ``out``."""
    skipped: list[Outcome] = []
    planned: list[Planned] = []
    variants: list[Variant] = []
    geometries: dict[int, Geometry] = {}
    with Package.open(path) as package:
        refs = package.slides()
        for index in slide_indices:
            part = refs[index].part
            tree = read_object_tree(package, part)
            more, less, geometry = plan_slide(index, tree, package.xml(part), variants, part)
            planned += more
            skipped += less
            if geometry is not None:
                geometries[index] = geometry
        deck = write_probe_deck(package, variants, out) if planned else None
    return ProbeDeck(skipped, planned, geometries, deck, len(variants))


def probe_many(
    items: Sequence[tuple[Path, Sequence[int]]], renderer: Renderer
) -> list[list[Outcome] | Exception]:
    """Every slide probe of several artifacts (each a deck and the slides to probe), their
    probe decks converted in one call of the renderer (its batches); per artifact its
    outcomes, or the error that stopped its probes."""
    results: list[list[Outcome] | Exception] = []
    with tempfile.TemporaryDirectory(prefix="refig-probes-") as tmp:
        plans: list[ProbeDeck | Exception] = []
        for number, (path, slides) in enumerate(items):
            try:
                plans.append(plan_deck(path, slides, Path(tmp) / f"probes-{number}.pptx"))
            except PackageError as exc:
                plans.append(exc)
        decks = [p for p in plans if isinstance(p, ProbeDeck) and p.deck is not None]
        if decks:
            jobs = [RenderJob(p.deck, pages="all", hidden=True) for p in decks if p.deck]
            # one call: the renderer converts them in its batches, not one call a deck; calls
            # from the engine's workers (other sources) run at once, each in a warm office
            outputs = renderer.render(jobs, Path(tmp))
            rendered = dict(zip(map(id, decks), outputs, strict=True))
        for plan in plans:
            if isinstance(plan, Exception) or plan.deck is None:
                results.append(plan if isinstance(plan, Exception) else plan.judged([]))
                continue
            try:
                results.append(plan.judged(_pages(rendered[id(plan)], plan.pages)))
            except ProbeRenderError as exc:
                results.append(exc)
    return results


def probe_slides(
    path: Path, slide_indices: Sequence[int], renderer: Renderer
) -> list[Outcome]:
    """Run every slide probe on the given slides (0-based) of the deck at ``path``."""
    [result] = probe_many([(path, slide_indices)], renderer)
    if isinstance(result, Exception):
        raise result
    return result
