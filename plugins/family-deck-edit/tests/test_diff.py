"""The structural diff: identity across decks, and requested changes against done ones."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest
from pptx import Presentation
from pptx.util import Emu, Pt
from refig_family_deck_edit.compare import compare, readable
from refig_family_deck_edit.diff import changes
from refig_family_deck_edit.matching import match_objects

from .conftest import REAL, read


def _edit(case_bytes: bytes, out: Path, change) -> Path:
    prs = Presentation(io.BytesIO(case_bytes))
    change(prs)
    prs.save(out)
    return out


def _shape(prs, slide: int, name: str):
    return next(s for s in prs.slides[slide - 1].shapes if s.name == name)


def test_a_right_edit_with_a_collateral_move(write_case, tmp_path):
    case, original, target = write_case("table-cell")
    new = case.spec["expect"][0]["value"]

    def edit(prs):
        _shape(prs, 3, "Results table").table.cell(2, 2).text = new
        contact = _shape(prs, 8, "Contact")
        contact.left = Emu(contact.left + 500_000)  # nobody asked for this

    prediction = _edit(case.original, tmp_path / "pred.pptx", edit)
    result = compare(read(original), read(target), read(prediction))
    assert [c.key for c in result.achieved] == [("3", "Results table", "cell 3,3")]
    assert not result.missed
    assert [(c.slide, c.field) for c in result.collateral] == [("8", "x")]
    assert result.recall == 1.0 and result.precision == 0.5 and result.collateral_count == 1
    text = readable(result, verdicts=True)
    assert "slide 3 / Results table: cell 3,3" in text
    assert "Collateral (done, never asked) (1)" in text


def test_the_right_cell_is_achieved_beside_a_wrong_one(write_case, tmp_path):
    """Cells are diffed one by one: the asked cell counts even when another changed too."""
    case, original, target = write_case("table-cell")

    def edit(prs):
        table = _shape(prs, 3, "Results table").table
        table.cell(2, 2).text = case.spec["expect"][0]["value"]
        table.cell(1, 1).text = "999"  # nobody asked for this

    result = compare(read(original), read(target), read(_edit(case.original,
                                                                 tmp_path / "p.pptx", edit)))
    assert [c.key for c in result.achieved] == [("3", "Results table", "cell 3,3")]
    assert [(c.field, c.after) for c in result.collateral] == [("cell 2,2", "999")]
    assert result.recall == 1.0 and result.precision == 0.5


def test_a_wrong_value_is_missed_not_collateral(write_case, tmp_path):
    case, original, target = write_case("normalise-subtitles")

    def edit(prs):
        for slide in prs.slides:
            for shape in slide.shapes:
                if shape.name == "Subtitle":
                    for para in shape.text_frame.paragraphs:
                        for run in para.runs:
                            run.font.size = Pt(21)

    result = compare(read(original), read(target),
                     read(_edit(case.original, tmp_path / "p.pptx", edit)))
    assert result.recall == 0.0 and len(result.missed) == 4 and not result.collateral


def test_objects_match_by_id_then_name_then_geometry_and_text(write_case, tmp_path):
    case, original, _ = write_case("table-cell")

    def rename_and_renumber(prs):
        slide = prs.slides[4]
        _shape(prs, 5, "Step 1").name = "Renamed step"  # same id: matched by id
        step2 = _shape(prs, 5, "Step 2")
        step2._element.nvSpPr.cNvPr.set("id", "901")  # new id, same name: matched by name
        step3 = _shape(prs, 5, "Step 3")
        step3._element.nvSpPr.cNvPr.set("id", "902")  # new id and name: geometry and text
        step3.name = "Box"
        assert slide is not None

    before = read(original)
    after = read(_edit(case.original, tmp_path / "ids.pptx", rename_and_renumber))
    pairs, removed, added = match_objects(
        [o for o in before.slides[4].walk()], [o for o in after.slides[4].walk()], 1e7)
    names = {a.name: b.name for a, b in pairs}
    assert names["Step 1"] == "Renamed step" and names["Step 2"] == "Step 2"
    assert names["Step 3"] == "Box" and not removed and not added


def test_bringing_one_shape_forward_reports_that_shape_alone(write_case):
    _, original, target = write_case("bring-to-front")
    moved = [c for c in changes(read(original), read(target)) if c.field == "z_order"]
    assert [c.target for c in moved] == ["Step 1"]


@pytest.mark.skipif(not REAL.is_dir(), reason="the shared real decks are absent")
def test_an_edit_of_a_real_deck(tmp_path):
    original = tmp_path / "shapes.pptx"
    shutil.copyfile(REAL / "shapes.pptx", original)
    prs = Presentation(original)
    shape = next(s for s in prs.slides[1].shapes if s.has_text_frame and s.text_frame.text)
    shape.text_frame.paragraphs[0].runs[0].text = "Edited"
    prs.save(tmp_path / "edited.pptx")
    found = changes(read(original), read(tmp_path / "edited.pptx"))
    assert [(c.slide, c.target, c.field, c.after) for c in found if c.field == "text"] == [
        ("2", shape.name, "text", shape.text_frame.text)]
    assert {c.field for c in found} <= {"text"}


def test_a_slide_of_twenty_thousand_anonymous_shapes_is_diffed():
    """No ids, no names, no text: matching falls to geometry, bounded per object."""
    from refig_family_deck_edit.structure import DeckObject, DeckStructure, Slide

    def deck(moved: int | None) -> DeckStructure:
        objects = tuple(DeckObject(kind="auto_shape", x=(k % 200) * 50_000 + (
            20_000 if k == moved else 0), y=(k // 200) * 60_000, w=40_000, h=40_000, z=k)
            for k in range(20_000))
        return DeckStructure(slide_width=12_192_000, slide_height=6_858_000,
                             slides=(Slide(index=1, part="s1", objects=objects),))

    found = changes(deck(None), deck(7_777))
    assert [(c.field, c.after - c.before) for c in found] == [("x", 20_000)]


@pytest.mark.skipif(not REAL.is_dir(), reason="the shared real decks are absent")
def test_a_real_deck_resaved_unedited_by_python_pptx_has_no_change(tmp_path):
    """python-pptx rewrites presentation.xml.rels in rId order; masters and layouts are read in
    their id lists' order, so themes.pptx (seven masters) no longer shows a new theme."""
    for path in sorted(REAL.glob("*.pptx")):
        if path.name == "mst-placeholders.pptx":
            continue  # no slide: refused by the gate
        resaved = tmp_path / path.name
        Presentation(str(path)).save(str(resaved))
        assert changes(read(path), read(resaved)) == [], path.name


def test_a_moved_inherited_placeholder_keeps_its_inherited_size(write_case, tmp_path):
    """python-pptx moves an inherited placeholder by writing ``a:off`` alone; the size comes
    from the layout, so a title moved two inches misses a one-inch move instead of reading as
    geometry (none) on both sides."""
    case, original, _ = write_case("table-cell")

    def mover(inches: int):
        def edit(prs):
            title = prs.slides[1].shapes.title
            title.left = title.left + Emu(914_400 * inches)
        return edit

    target = _edit(case.original, tmp_path / "one.pptx", mover(1))
    prediction = _edit(case.original, tmp_path / "two.pptx", mover(2))
    before = read(original)
    title = next(o for o in read(target).slides[1].objects if o.placeholder == "title")
    layout_title = next(o for o in before.slides[1].objects if o.placeholder == "title")
    assert title.w == layout_title.w and title.x == layout_title.x + 914_400
    result = compare(before, read(target), read(prediction))
    assert [c.field for c in result.missed] == ["x"] and result.recall < 1
