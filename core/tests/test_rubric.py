"""The rubric as data: loading, hashing, the strict schema, answer checks and the cap."""

from __future__ import annotations

import json
import tomllib

import pytest
from refig.errors import RefigError
from refig.rubric import AnswerError, family_rubric, load_rubric


@pytest.fixture
def rubric():
    return load_rubric(family="figure-to-slide")


def _answer(rubric, **override):
    answer = {a.id: {"rationale": "fine", "score": int(a.max) // 2} for a in rubric.axes}
    answer.update(override)
    answer.setdefault("total", sum(v["score"] for k, v in answer.items() if k != "total"))
    return answer


def test_packaged_rubric_has_the_five_axes_of_the_paper(rubric):
    assert [(a.id, a.max) for a in rubric.axes] == [
        ("text", 20), ("semantic_structure", 30), ("layout", 15),
        ("editability", 25), ("visual_detail", 10),
    ]
    assert rubric.max_total == 100
    assert rubric.version == "1"
    assert rubric.spec.cap is not None and rubric.spec.cap.max_total == 25
    assert all(a.earns and a.loses for a in rubric.axes)


def test_schema_is_strict_everywhere(rubric):
    fmt = rubric.response_format()
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
    schema = fmt["json_schema"]["schema"]
    assert schema["additionalProperties"] is False
    assert schema["required"] == [*[a.id for a in rubric.axes], "total"]
    for axis in rubric.axes:
        prop = schema["properties"][axis.id]
        assert prop["additionalProperties"] is False
        assert prop["required"] == ["rationale", "score"]
        assert prop["properties"]["score"] == {"type": "integer", "minimum": 0,
                                               "maximum": int(axis.max)}
    assert schema["properties"]["total"]["maximum"] == 100


def test_hash_ignores_formatting_but_not_content(rubric, tmp_path):
    text = family_rubric("figure-to-slide").read_text()
    reformatted = tmp_path / "same.toml"
    reformatted.write_text("# a comment that changes nothing\n\n" + text)
    assert load_rubric(reformatted).sha256 == rubric.sha256
    changed = tmp_path / "changed.toml"
    changed.write_text(text.replace("max_total = 25", "max_total = 20"))
    assert load_rubric(changed).sha256 != rubric.sha256


def test_a_valid_answer_parses(rubric):
    scores = rubric.parse(json.dumps(_answer(rubric)))
    assert [s.axis for s in scores] == [a.id for a in rubric.axes]
    assert sum(s.score for s in scores) == 49
    assert scores[0].rationale == "fine"


def test_whole_numbers_written_as_floats_are_integers(rubric):
    answer = _answer(rubric)
    answer["text"]["score"] = 10.0
    assert rubric.parse(json.dumps(answer))[0].score == 10


def test_a_fenced_answer_parses(rubric):
    assert rubric.parse("```json\n" + json.dumps(_answer(rubric)) + "\n```")


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda r, a: "{ not json", "not valid JSON"),
        (lambda r, a: "", "empty"),
        (lambda r, a: {**a, "text": {"rationale": "x", "score": 21},
                       "total": a["total"] + 11}, "text.score"),
        (lambda r, a: {**a, "layout": {"rationale": "x", "score": -1},
                       "total": a["total"] - 8}, "layout.score"),
        (lambda r, a: {**a, "total": a["total"] + 1}, "not the sum"),
        (lambda r, a: {**a, "extra": 1}, "extra"),
        (lambda r, a: {k: v for k, v in a.items() if k != "editability"}, "editability"),
        (lambda r, a: {**a, "text": {"rationale": "x", "score": "10"}}, "text.score"),
        (lambda r, a: {**a, "text": {"rationale": "x", "score": 10.5}}, "text.score"),
    ],
)
def test_bad_answers_are_refused_with_a_reason(rubric, mutate, message):
    bad = mutate(rubric, _answer(rubric))
    with pytest.raises(AnswerError, match=message):
        rubric.parse(bad if isinstance(bad, str) else json.dumps(bad))


def test_the_cap_zeroes_editability_and_bounds_the_total(rubric):
    scores = rubric.parse(json.dumps(_answer(rubric)))
    plain = rubric.finish(scores, flattened=False)
    assert (plain.total, plain.raw_total, plain.capped) == (49, 49, False)
    capped = rubric.finish(scores, flattened=True)
    assert capped.capped and capped.raw_total == 49 and capped.total == 25
    editability = next(s for s in capped.scores if s.axis == "editability")
    assert editability.score == 0 and editability.rationale.startswith("[capped")
    low = rubric.parse(json.dumps(_answer(rubric, text={"rationale": "x", "score": 0},
                                          semantic_structure={"rationale": "x", "score": 0})))
    # Under the cap already: only editability is removed.
    assert rubric.finish(low, flattened=True).total == 7 + 5


def test_the_cap_flag_is_read_from_metric_values(rubric):
    assert rubric.is_flattened({"flattening.flattened": 1.0})
    assert not rubric.is_flattened({"flattening.flattened": 0.0})
    assert not rubric.is_flattened({"flattening.flattened": None})
    assert not rubric.is_flattened({})


def test_a_user_rubric_with_other_axes_compiles(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text(
        'name = "mine"\nversion = "2"\nscore_type = "number"\ninstructions = "Grade."\n'
        '[[axes]]\nid = "a"\ntitle = "A"\nmax = 2.5\n'
        '[[axes]]\nid = "b"\ntitle = "B"\nmax = 7.5\n'
    )
    mine = load_rubric(path)
    assert mine.max_total == 10 and mine.spec.cap is None
    schema = mine.schema()
    assert schema["properties"]["a"]["properties"]["score"]["type"] == "number"
    ok = {"a": {"rationale": "", "score": 1.25}, "b": {"rationale": "", "score": 7.5},
          "total": 8.75}
    assert sum(s.score for s in mine.parse(json.dumps(ok))) == 8.75
    assert "a (A), 0 to 2.5" in mine.prompt()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not toml [", "not valid TOML"),
        ('name = "x"\nversion = "1"\ninstructions = "i"\naxes = []', "axes"),
        ('name = "x"\nversion = "1"\ninstructions = "i"\ntotal = 50\n'
         '[[axes]]\nid = "a"\ntitle = "A"\nmax = 10', "not the sum"),
        ('name = "x"\nversion = "1"\ninstructions = "i"\n'
         '[[axes]]\nid = "a"\ntitle = "A"\nmax = 10\n'
         '[[axes]]\nid = "a"\ntitle = "A again"\nmax = 10', "unique"),
        ('name = "x"\nversion = "1"\ninstructions = "i"\n'
         '[[axes]]\nid = "a"\ntitle = "A"\nmax = 10\n'
         '[cap]\nflag = "f"\nzero_axes = ["b"]\nmax_total = 5', "unknown axes"),
    ],
)
def test_invalid_rubric_files_name_the_file_and_the_fix(tmp_path, content, message):
    path = tmp_path / "bad.toml"
    path.write_text(content)
    with pytest.raises(RefigError, match=message) as caught:
        load_rubric(path)
    assert caught.value.path == path and caught.value.fix


def test_a_missing_or_unreadable_rubric_is_a_clear_error(tmp_path):
    with pytest.raises(RefigError, match="cannot read the rubric"):
        load_rubric(tmp_path / "nope.toml")
    with pytest.raises(RefigError, match="cannot read the rubric") as caught:
        load_rubric(tmp_path)  # a directory
    assert caught.value.path == tmp_path and "--rubric" in caught.value.fix


def test_the_prompt_quotes_every_axis_and_the_shape_of_the_answer(rubric):
    prompt = rubric.prompt()
    for axis in rubric.axes:
        assert f"{axis.id} ({axis.title}), 0 to {int(axis.max)}" in prompt
    assert '"total":0' in prompt
    assert tomllib.loads(
        family_rubric("figure-to-slide").read_text()
    )["instructions"].split()[0] in prompt
