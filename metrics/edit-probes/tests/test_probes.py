"""The slide edits as PowerPoint applies them, the probe deck, and what the metric reports."""

from __future__ import annotations

import copy
import hashlib
import io
import math
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import pytest
from lxml import etree
from PIL import Image
from pptx import Presentation
from pptx.enum.shapes import MSO_CONNECTOR, MSO_SHAPE
from pptx.oxml.ns import qn
from pptx.util import Emu
from refig.models import GateResult
from refig.plugin import ErrorInfo, Renderer, RenderOutput
from refig.protocols import Artifact
from refig_metric_edit_probes import edits, slides
from refig_metric_edit_probes.deck import Variant, context_digest, drop_effects, write_probe_deck
from refig_metric_edit_probes.metric import EditProbes, edited_slides
from refig_metric_edit_probes.nodes import choose_target, endpoints
from refig_metric_edit_probes.slides import MAX_DECK_PAGES
from refig_toolkit_pptx import Package, inspect_structure, read_tree

DECK_EDIT = "deck-edit"

MOVE = (1_000_000.0, 500_000.0)


def glued_pair(slide, kind, a: tuple[str, int, int, int], b: tuple[str, int, int, int]):
    """Two labelled 2,000,000-EMU-wide boxes (text, x, y, height) and a connector of ``kind``
    glued from A's right side to B's left."""
    shapes = []
    for text, x, y, height in (a, b):
        shape = slide.shapes.add_shape(
            MSO_SHAPE.RECTANGLE, Emu(x), Emu(y), Emu(2_000_000), Emu(height)
        )
        shape.text_frame.text = text
        shapes.append(shape)
    link = slide.shapes.add_connector(kind, 0, 0, 0, 0)
    link.begin_connect(shapes[0], 3)
    link.end_connect(shapes[1], 1)


def two_boxes(kit: ModuleType, path: Path, *, grouped: bool = False) -> Path:
    """Box A (labelled) glued by a connector to box B, and a free line touching A's top."""
    prs, slide = kit.new_slide()
    glued_pair(
        slide,
        MSO_CONNECTOR.STRAIGHT,
        ("Alpha", 1_000_000, 2_000_000, 1_000_000),
        ("Beta", 6_000_000, 2_000_000, 1_000_000),
    )
    slide.shapes.add_connector(
        MSO_CONNECTOR.STRAIGHT, Emu(2_000_000), Emu(500_000), Emu(2_000_000), Emu(2_000_000)
    )
    if grouped:
        group = slide.shapes.add_group_shape(list(slide.shapes))
        # Children drawn at half scale: child space twice the group's size.
        xfrm = group._element.grpSpPr.find(qn("a:xfrm"))
        ext = xfrm.find(qn("a:chExt"))
        ext.set("cx", str(int(ext.get("cx")) * 2))
        ext.set("cy", str(int(ext.get("cy")) * 2))
    return kit.save(prs, path)


def moved_tree(path: Path, tmp_path: Path):
    """The tree before, and the tree of the probe deck's moved copy."""
    with Package.open(path) as package:
        part = package.slides()[0].part
        tree = read_tree(package, part)
        target = choose_target(tree)
        root = copy.deepcopy(package.xml(part))
        edits.move(root, target.node.id, MOVE, target.edges)
        deck = write_probe_deck([(package, [Variant(part, root)])], tmp_path / "moved.pptx")
    with Package.open(deck) as package:
        return tree, target, read_tree(package, package.slides()[0].part)


def by_id(tree, shape_id):
    return next(o for o in tree.walk() if o.id == shape_id)


@pytest.mark.parametrize("grouped", [False, True])
def test_move_takes_glued_connectors_along_and_leaves_free_lines(
    kit: ModuleType, tmp_path: Path, grouped: bool
) -> None:
    path = two_boxes(kit, tmp_path / "boxes.pptx", grouped=grouped)
    before, target, after = moved_tree(path, tmp_path)
    assert target.node.text == "Alpha"
    assert [e.glued for e in target.edges] == [True, False]
    node_before, node_after = by_id(before, target.node.id).rect, by_id(after, target.node.id).rect
    assert node_after.x - node_before.x == pytest.approx(MOVE[0], abs=4)
    assert node_after.y - node_before.y == pytest.approx(MOVE[1], abs=4)
    glued, free = (e.line for e in target.edges)
    (s0, e0), (s1, e1) = endpoints(glued), endpoints(by_id(after, glued.id))
    assert math.dist(s1, (s0[0] + MOVE[0], s0[1] + MOVE[1])) < 8  # the glued end followed
    assert math.dist(e1, e0) < 8  # the end glued to Beta stayed
    assert endpoints(by_id(after, free.id)) == endpoints(free)  # the free line stayed


def test_the_longer_label_is_half_again_as_long() -> None:
    assert len(edits.longer_label("Image Encoder")) >= 1.5 * len("Image Encoder")
    assert edits.longer_label("  Two\n words ").startswith("Two words ")


def artifact(path: Path, family: str = "figure-to-slide", **references: Path) -> Artifact:
    return Artifact(
        path=path,
        sha256=hashlib.sha256(path.read_bytes()).hexdigest(),
        gate=GateResult(passed=True, slides=1),
        family=family,
        references=references,
    )


def values(path_or_artifact, metric: EditProbes) -> dict:
    target = (
        path_or_artifact if isinstance(path_or_artifact, Artifact) else artifact(path_or_artifact)
    )
    return {v.name: v for v in metric.compute(target)}


@pytest.mark.slow
def test_a_raster_paste_has_no_probe_that_applies(
    kit: ModuleType, source_png: Path, tmp_path: Path, probe_metric: EditProbes
) -> None:
    prs, slide = kit.new_slide()
    slide.shapes.add_picture(str(source_png), 0, 0, Emu(kit.SLIDE_W), Emu(kit.SLIDE_H))
    got = values(kit.save(prs, tmp_path / "paste.pptx"), probe_metric)
    assert got["probe_score"].value is None
    assert got["probes_applicable"].value == 0
    probes = got["probe_score"].detail["probes"]
    assert [p["probe"] for p in probes] == ["move", "relabel", "delete", "recolour"]
    assert not any(p["applicable"] for p in probes)
    assert all("no text-bearing shape" in p["reason"] for p in probes)


def test_a_failed_gate_gives_no_value(tmp_path: Path, probe_metric: EditProbes) -> None:
    path = tmp_path / "broken.pptx"
    path.write_bytes(b"not a zip")
    failed = Artifact(path=path, sha256="0" * 64, gate=GateResult(passed=False, reason="corrupt"))
    got = values(failed, probe_metric)
    assert got["probe_score"].value is None
    assert got["probe_score"].detail["reason"] == "no editable file (gate failed)"


@pytest.mark.slow
def test_all_variants_render_in_one_conversion_and_repeat_exactly(
    kit: ModuleType, tmp_path: Path, probe_metric: EditProbes
) -> None:
    renderer = probe_metric.renderer()
    calls: list[int] = []

    class Counting(Renderer):
        settings, version, fonts = renderer.settings, renderer.version, renderer.fonts

        def render(self, jobs, out):
            calls.append(len(jobs))
            return renderer.render(jobs, out)

    metric = EditProbes()
    metric.renderer = lambda family="": Counting()  # type: ignore[method-assign]
    path = two_boxes(kit, tmp_path / "boxes.pptx")
    first = values(path, metric)
    assert calls == [1]  # one job: the deck of the unedited copy and four variants
    assert first["probes_applicable"].value == 4
    again = values(path, metric)
    assert {k: (v.value, v.detail) for k, v in first.items()} == {
        k: (v.value, v.detail) for k, v in again.items()
    }


@pytest.mark.slow
def test_deck_edit_probes_the_edited_slides_only(
    kit: ModuleType, tmp_path: Path, probe_metric: EditProbes
) -> None:
    prs = Presentation()
    prs.slide_width, prs.slide_height = Emu(kit.SLIDE_W), Emu(kit.SLIDE_H)
    for text in ("One", "Two", "Three"):
        slide = prs.slides.add_slide(prs.slide_layouts[6])
        box = slide.shapes.add_shape(
            MSO_SHAPE.RECTANGLE, Emu(2_000_000), Emu(2_000_000), Emu(3_000_000), Emu(1_500_000)
        )
        box.text_frame.text = text
    original = kit.save(prs, tmp_path / "original.pptx")
    prs.slides[1].shapes[0].text_frame.text = "Two, edited"
    edited = kit.save(prs, tmp_path / "edited.pptx")
    assert edited_slides(edited, original) == [1]
    got = values(artifact(edited, DECK_EDIT, deck=original), probe_metric)
    probes = got["probe_score"].detail["probes"]
    assert {p["slide"] for p in probes} == {1}
    assert all(p["evidence"]["text"] == "Two, edited" for p in probes)
    assert got["probes_applicable"].value == 4


@pytest.mark.slow
def test_an_elbow_whose_vertical_run_hugs_the_node_still_meets_it(
    kit: ModuleType, tmp_path: Path, probe_metric: EditProbes
) -> None:
    # B sits just right of A and well below it: the elbow's horizontal runs are a few pixels
    # long, so the line leaves A's right side going down, close along its edge.
    prs, slide = kit.new_slide()
    glued_pair(
        slide,
        MSO_CONNECTOR.ELBOW,
        ("Prompt", 1_000_000, 1_000_000, 800_000),
        ("Graph Encoder", 3_100_000, 4_000_000, 800_000),
    )
    got = values(kit.save(prs, tmp_path / "elbow.pptx"), probe_metric)
    move = next(p for p in got["probe_score"].detail["probes"] if p["probe"] == "move")
    assert move["evidence"]["edges_meeting_before"] == 1
    assert move["passed"], move


def test_a_free_line_under_a_shadowed_node_does_not_meet_it_after_the_move(
    kit: ModuleType, tmp_path: Path, probe_metric: EditProbes
) -> None:
    # A line that only touches the bottom of a box with a hard black shadow 6 px below it: the
    # line stays behind. Until metric version 5 the band below the moved box held the box's
    # own shadow, and this free line counted as meeting it.
    prs, slide = kit.new_slide()
    box = slide.shapes.add_shape(
        MSO_SHAPE.RECTANGLE, Emu(1_000_000), Emu(1_000_000), Emu(2_000_000), Emu(800_000)
    )
    box.text_frame.text = "Prompt"
    box._element.spPr.append(etree.fromstring(
        '<a:effectLst xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main">'
        '<a:outerShdw dist="90000" dir="5400000" algn="t" rotWithShape="0">'
        '<a:srgbClr val="000000"/></a:outerShdw></a:effectLst>'
    ))
    slide.shapes.add_connector(
        MSO_CONNECTOR.STRAIGHT, Emu(2_000_000), Emu(3_000_000), Emu(2_000_000), Emu(1_800_000)
    )
    got = values(kit.save(prs, tmp_path / "touching.pptx"), probe_metric)
    move = next(p for p in got["probe_score"].detail["probes"] if p["probe"] == "move")
    assert move["evidence"]["edges_meeting_before"] == 1
    assert move["evidence"]["edges_meeting_after"] == 0
    assert move["passed"] is False


def test_each_measured_probe_keeps_its_before_and_after_renderings(
    kit: ModuleType, tmp_path: Path, probe_metric: EditProbes
) -> None:
    got = values(two_boxes(kit, tmp_path / "two.pptx"), probe_metric)
    score = got["probe_score"]
    kept = {hashlib.sha256(png).hexdigest(): png for png in score.objects}
    assert len(kept) == len(score.objects)  # each picture once, the shared "before" too
    measured = [p for p in score.detail["probes"] if p["applicable"] and "passed" in p]
    assert len(measured) == 4
    named = {sha for p in measured for sha in p["renders"].values()}
    assert named == set(kept)  # every picture named, none named that is not kept
    assert score.detail["objects"] == list(kept)  # what a viewer may show of the run
    assert len({p["renders"]["before"] for p in measured}) == 1
    for png in kept.values():
        with Image.open(io.BytesIO(png)) as image:
            assert image.format == "PNG" and image.width == probe_metric.width
    assert "objects" not in score.model_dump()  # the pictures are files, not the stored row


class CountingRenderer(Renderer):
    """The real probe renderer, counting the calls and decks it is given."""

    def __init__(self, renderer):
        self.renderer, self.calls = renderer, []
        self.settings = renderer.settings

    def render(self, jobs, out_dir):
        self.calls.append(len(jobs))
        return self.renderer.render(jobs, out_dir)


def test_a_group_is_probed_in_one_call_with_the_values_each_gets_alone(
    kit: ModuleType, tmp_path: Path, probe_metric: EditProbes, lookalikes: dict[str, Path]
) -> None:
    broken = tmp_path / "broken.pptx"
    broken.write_bytes(b"PK\x03\x04 not a deck")
    group = [artifact(path) for path in lookalikes.values()] + [artifact(broken)]
    alone = [{v.name: (v.value, v.detail) for v in probe_metric.compute(a)} for a in group[:-1]]
    counting = CountingRenderer(probe_metric.renderer())
    batched = EditProbes()
    batched._slide_renderer = counting  # the same warm renderer, counted
    batched.prepare(group)
    applicable = sum(1 for v in alone if v["probes_applicable"][0])
    shared = math.ceil(applicable / (MAX_DECK_PAGES // 5))  # one template: decks of 5 pages each
    assert counting.calls == [shared] and shared < applicable
    together = [{v.name: (v.value, v.detail) for v in batched.compute(a)} for a in group]
    assert together[:-1] == alone  # the same values, outcomes and evidence
    assert together[-1]["probe_score"][0] is None
    assert "could not run" in together[-1]["probe_score"][1]["reason"]
    assert counting.calls == [shared]  # nothing rendered again
    assert batched._prepared == {}


class FailingShared(CountingRenderer):
    """The real probe renderer, but every deck of more than one artifact's five slides fails."""

    def render(self, jobs, out_dir):
        self.calls.append(len(jobs))
        shared = []
        for job in jobs:
            with Package.open(job.path) as package:
                shared.append(len(package.slides()) > 5)
        kept = [job for job, alone in zip(jobs, shared, strict=True) if not alone]
        rendered = iter(self.renderer.render(kept, out_dir))
        failed = RenderOutput(error=ErrorInfo(kind="render_failed", message="refused"))
        return [failed if s else next(rendered) for s in shared]


def test_a_shared_deck_that_fails_is_rendered_again_one_deck_an_artifact(
    probe_metric: EditProbes, lookalikes: dict[str, Path]
) -> None:
    group = [artifact(path) for path in lookalikes.values()]
    alone = [{v.name: (v.value, v.detail) for v in probe_metric.compute(a)} for a in group]
    failing = FailingShared(probe_metric.renderer())
    batched = EditProbes()
    batched._slide_renderer = failing
    batched.prepare(group)
    applicable = sum(1 for v in alone if v["probes_applicable"][0])
    per_deck = MAX_DECK_PAGES // 5
    shared = applicable - applicable % per_deck  # those in full shared decks, rendered again
    assert failing.calls == [math.ceil(applicable / per_deck), shared] and shared > 1
    assert [{v.name: (v.value, v.detail) for v in batched.compute(a)} for a in group] == alone


def context_of(path: Path) -> str | None:
    with Package.open(path) as package:
        return context_digest(package, [package.slides()[0].part])


def test_slides_share_a_deck_only_in_the_same_context(
    kit: ModuleType, tmp_path: Path, lookalikes: dict[str, Path]
) -> None:
    # what the slides draw, their pictures included, is theirs; the template is the context
    assert len({context_of(lookalikes[s]) for s in ("glued", "picture_under_labels")}) == 1
    prs, slide = kit.new_slide(height=kit.SLIDE_H // 2)
    kit.add_native_figure(slide)
    assert context_of(kit.save(prs, tmp_path / "wide.pptx")) != context_of(lookalikes["glued"])
    prs, slide = kit.new_slide()
    kit.add_native_figure(slide)
    other = prs.slides.add_slide(prs.slide_layouts[6])
    slide.shapes[0].click_action.target_slide = other  # a link only its own package resolves
    assert context_of(kit.save(prs, tmp_path / "linked.pptx")) is None


def test_every_shape_loses_its_effects_in_its_schema_place() -> None:
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    group = slide.shapes.add_group_shape()
    node = group.shapes.add_shape(MSO_SHAPE.RECTANGLE, Emu(0), Emu(0), Emu(900_000), Emu(500_000))
    sibling = group.shapes.add_shape(MSO_SHAPE.OVAL, Emu(0), Emu(900_000), Emu(500_000),
                                     Emu(500_000))
    glow = '<a:effectLst xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main">' \
           '<a:glow rad="63500"><a:srgbClr val="FF0000"/></a:glow></a:effectLst>'
    node._element.spPr.append(etree.fromstring(glow))  # before the preset geometry's successors

    def effects(shape) -> tuple[str | None, list[int]]:
        ref = shape._element.find(f"{qn('p:style')}/{qn('a:effectRef')}")
        lists = shape._element.spPr.findall(qn("a:effectLst"))
        return (None if ref is None else ref.get("idx")), [len(e) for e in lists]

    assert effects(sibling) == ("2", [])  # python-pptx's style refers to the theme's shadow
    drop_effects(slide._element)
    assert effects(node) == ("0", [0]) and effects(sibling) == ("0", [0])
    assert [len(e) for e in group._element.grpSpPr.findall(qn("a:effectLst"))] == [0]
    order = [child.tag for child in node._element.spPr]
    assert order.index(qn("a:effectLst")) > order.index(qn("a:prstGeom"))


def test_the_inspect_stage_tree_is_not_read_again_and_gives_the_same_values(
    probe_metric: EditProbes, lookalikes: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = lookalikes["glued"]
    read_alone = values(path, probe_metric)
    reads: list[str] = []
    monkeypatch.setattr(slides, "read_object_tree", lambda package, part: reads.append(part))
    inspected = replace(artifact(path), structure=inspect_structure(path).tree)
    given = values(inspected, probe_metric)
    assert reads == []
    assert {k: (v.value, v.detail) for k, v in given.items()} == {
        k: (v.value, v.detail) for k, v in read_alone.items()
    }
