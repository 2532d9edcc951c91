from pathlib import Path

import pytest
from refig.plugin import Artifact, Evidence, GateResult, JudgeRequest, load_rubric
from refig.plugins import Registry
from refig_toolkit_pptx import ObjectKind, ObjectTree, SlideObject

from {{ cookiecutter.module }}.plugin import NativeShareJudge

#: A small rubric of the shape every family's rubric has: axes, and a cap on a metric flag.
RUBRIC = """
name = "probe"
version = "1"
score_type = "integer"
total = 30
instructions = "Grade the slide."

[[axes]]
id = "text"
title = "Text"
max = 10

[[axes]]
id = "editability"
title = "Editability"
max = 20

[cap]
flag = "flattening.flattened"
zero_axes = ["editability"]
max_total = 5
reason = "flattened"
"""


@pytest.fixture
def rubric_path(tmp_path):
    path = tmp_path / "rubric.toml"
    path.write_text(RUBRIC)
    return path


def _request(rubric_path, objects, metrics=None):
    tree = ObjectTree(slide_width=100, slide_height=100, objects=tuple(objects))
    artifact = Artifact(path=Path("slide.pptx"), sha256="0" * 64, gate=GateResult(passed=True),
                        structure=tree, metrics=metrics or {})
    return JudgeRequest(artifact, Evidence(text="objects: audited"), 0, rubric_path)


def test_scores_every_axis_by_native_share(rubric_path):
    objects = [SlideObject(kind=ObjectKind.TEXT_BOX, text="Encoder"),
               SlideObject(kind=ObjectKind.CONNECTOR),
               SlideObject(kind=ObjectKind.AUTO_SHAPE),
               SlideObject(kind=ObjectKind.PICTURE)]
    judgment = NativeShareJudge().judge(_request(rubric_path, objects))
    rubric = load_rubric(rubric_path)
    assert judgment.status == "ok" and judgment.proxy
    assert [s.axis for s in judgment.scores] == [a.id for a in rubric.axes]
    assert [s.score for s in judgment.scores] == [round(0.75 * a.max) for a in rubric.axes]
    assert judgment.total == sum(s.score for s in judgment.scores)


def test_it_says_it_is_model_free(rubric_path):
    """Scored once whatever --repeats says, no repeatability row, no calls, nothing spent."""
    judge = NativeShareJudge()
    assert judge.deterministic is True
    for objects in ([SlideObject(kind=ObjectKind.TEXT_BOX, text="x")], []):  # ok and failed
        judgment = judge.judge(_request(rubric_path, objects))
        assert judgment.deterministic and judgment.calls == 0 and judgment.cost_usd == 0.0


def test_hidden_objects_are_not_judged(rubric_path):
    shown = SlideObject(kind=ObjectKind.TEXT_BOX, text="Encoder")
    hidden = SlideObject(kind=ObjectKind.PICTURE, hidden=True)
    judgment = NativeShareJudge().judge(_request(rubric_path, [shown, hidden]))
    assert judgment.total == 30  # the hidden picture is not on the slide


def test_a_flattened_slide_is_capped_by_the_rubric(rubric_path):
    judgment = NativeShareJudge().judge(_request(
        rubric_path, [SlideObject(kind=ObjectKind.TEXT_BOX, text="x")],
        metrics={"flattening.flattened": 1.0}))
    assert judgment.capped and judgment.total < judgment.raw_total


def test_an_empty_slide_is_a_typed_failure(rubric_path):
    judgment = NativeShareJudge().judge(_request(rubric_path, []))
    assert judgment.status == "failed" and judgment.error.kind == "no_objects"


def test_refig_loads_the_installed_plugin():
    env = {"REFIG_STRICT_PLUGINS": "1", "REFIG_LOAD_PLUGINS": "{{ cookiecutter.distribution }}"}
    chosen = Registry.load(environ=env).resolve("judge", "{{ cookiecutter.name }}")
    assert isinstance(chosen.create(), NativeShareJudge)
