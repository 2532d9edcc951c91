"""The generated deck-sample edits: deterministic, covering PPTArena's taxonomy, exact specs."""

from __future__ import annotations

from refig_family_deck_edit.diff import changes
from refig_family_deck_edit.oracle import oracle
from refig_family_deck_edit.sample.build import generate_case
from refig_family_deck_edit.sample.recipes import NAMES
from refig_family_deck_edit.taxonomy import CATEGORIES, OPERATIONS

from .conftest import case_of, read


def test_same_seed_same_bytes_and_seeds_differ():
    for index in (0, 7, 21):
        one, two = generate_case(3, index), generate_case(3, index)
        assert one.original == two.original and one.target == two.target
        assert one.spec == two.spec
    assert generate_case(3, 0).original != generate_case(4, 0).original


def test_no_clock_reaches_the_bytes():
    """Two builds a second apart can only agree if nothing stamps the time: check the stamps."""
    import io
    import zipfile

    deck = zipfile.ZipFile(io.BytesIO(case_of(0, NAMES.index("chart-value")).target))
    workbooks = [n for n in deck.namelist() if n.endswith(".xlsx")]
    assert workbooks
    assert {i.date_time for i in deck.infolist()} == {(1980, 1, 1, 0, 0, 0)}
    inner = zipfile.ZipFile(io.BytesIO(deck.read(workbooks[0])))
    assert {i.date_time for i in inner.infolist()} == {(1980, 1, 1, 0, 0, 0)}
    assert b"2017-06-01T00:00:00Z" in inner.read("docProps/core.xml")


def test_covers_every_category_and_all_sixteen_operations_with_cross_slide_edits():
    cases = [case_of(0, i) for i in range(len(NAMES))]
    categories = {c for case in cases for c in case.categories}
    operations = {o for case in cases for o in case.operations}
    assert categories == set(CATEGORIES)
    assert operations == set(OPERATIONS)  # SmartArt and audio/video included
    cross = {case.meta["recipe"] for case in cases if case.meta["cross_slide"]}
    assert {"notes-then-delete-staging", "normalise-subtitles", "translate-titles",
            "fade-transitions", "footers"} <= cross
    assert any("+" in case.meta["recipe"] and len(case.categories) > 1 for case in cases)
    assert {c for case in cases[:5] for c in case.categories} == set(CATEGORIES)  # n=5 spans
    for case in cases:
        case.check()  # no target equals its original


def test_smartart_and_video_are_read_from_the_deck_and_their_edits_are_exact(write_case):
    """The diagram's nodes come from its data model, the video's trim from p14:media; the IF
    oracle gives the target 5 and the untouched original 0 on each media edit."""
    for recipe, field in (("rename-stage", "smartart"), ("trim-video", "media"),
                          ("remove-video", "object")):
        case, original, target = write_case(recipe)
        before, after = read(original), read(target)
        diagram = next(o for o in before.slides[8].objects if o.name == "Roadmap diagram")
        assert diagram.kind == "smartart" and len(diagram.smartart) == 4
        if field == "smartart":  # one node renamed, the rest kept in order
            renamed = next(o for o in after.slides[8].objects if o.name == "Roadmap diagram")
            assert list(renamed.smartart) == case.spec["expect"][0]["value"]
            assert sum(a != b for a, b in zip(diagram.smartart, renamed.smartart,
                                              strict=True)) == 1
        video = next(o for o in before.slides[9].objects if o.name == "Launch video")
        assert video.kind == "video" and video.media is not None and video.media.sha256
        assert video.image_sha256  # the poster frame
        assert [c.field for c in changes(before, after)] == [field], recipe
        assert oracle(before, after, case.spec).score == 5
        assert oracle(before, before, case.spec).score == 0


def test_every_spec_is_exactly_the_targets_diff(write_case):
    """Each target differs from its original by exactly the spec (plus allowed side effects)."""
    for recipe in NAMES:
        case, original, target = write_case(recipe)
        done = {c.key: c.after for c in changes(read(original), read(target))}
        expected = {(e["slide"], e["target"], e["field"]): e["value"]
                    for e in case.spec["expect"]}
        allowed = {tuple(k) for k in case.spec["allow"]}
        assert expected, recipe
        assert set(done) - set(expected) <= allowed, (recipe, set(done) - set(expected))
        for key, value in expected.items():
            assert done.get(key) == value, (recipe, key, done.get(key), value)


def test_oracle_scores_identity_zero_target_five_and_half_an_edit_between(write_case, tmp_path):
    for recipe in NAMES:
        case, original, target = write_case(recipe)
        before, after = read(original), read(target)
        assert oracle(before, before, case.spec).score == 0, recipe
        assert oracle(before, after, case.spec).score == 5, recipe
    # Half of a cross-slide edit: subtitles normalised on two slides of four.
    import io

    from pptx import Presentation
    from pptx.util import Pt

    case, original, _ = write_case("normalise-subtitles")
    prs = Presentation(io.BytesIO(case.original))
    fixed = 0
    for slide in prs.slides:
        for shape in slide.shapes:
            if shape.name == "Subtitle" and fixed < 2:
                for para in shape.text_frame.paragraphs:
                    for run in para.runs:
                        run.font.size = Pt(20)
                fixed += 1
    half = tmp_path / "half.pptx"
    prs.save(half)
    verdict = oracle(read(original), read(half), case.spec)
    assert verdict.recall == 0.5 and not verdict.collateral
    assert verdict.score in (2, 3)
