from pathlib import Path

from refig.models import GateResult, ObjectKind, ObjectTree, SlideObject
from refig.plugins import Registry
from refig.protocols import Artifact, JudgeRequest
from refig.rubric import load_rubric

from {{ cookiecutter.module }}.plugin import NativeShareJudge


def _request(objects, metrics=None):
    tree = ObjectTree(slide_width=100, slide_height=100, objects=tuple(objects))
    artifact = Artifact(path=Path("slide.pptx"), sha256="0" * 64, gate=GateResult(passed=True),
                        tree=tree, metrics=metrics or {})
    return JudgeRequest(artifact=artifact, audit="", repeat=0)


def test_scores_every_axis_by_native_share():
    objects = [SlideObject(kind=ObjectKind.TEXT_BOX, text="Encoder"),
               SlideObject(kind=ObjectKind.CONNECTOR),
               SlideObject(kind=ObjectKind.AUTO_SHAPE),
               SlideObject(kind=ObjectKind.PICTURE)]
    judgment = NativeShareJudge().judge(_request(objects))
    rubric = load_rubric()
    assert judgment.status == "ok" and judgment.proxy
    assert [s.axis for s in judgment.scores] == [a.id for a in rubric.axes]
    assert [s.score for s in judgment.scores] == [round(0.75 * a.max) for a in rubric.axes]
    assert judgment.total == sum(s.score for s in judgment.scores)


def test_a_flattened_slide_is_capped_by_the_rubric():
    judgment = NativeShareJudge().judge(_request(
        [SlideObject(kind=ObjectKind.TEXT_BOX, text="x")], metrics={"flattening.flattened": 1.0}))
    assert judgment.capped and judgment.total < judgment.raw_total


def test_an_empty_slide_is_a_typed_failure():
    judgment = NativeShareJudge().judge(_request([]))
    assert judgment.status == "failed" and judgment.error.kind == "no_objects"


def test_refig_loads_the_installed_plugin():
    env = {"REFIG_STRICT_PLUGINS": "1", "REFIG_LOAD_PLUGINS": "{{ cookiecutter.distribution }}"}
    chosen = Registry.load(environ=env).resolve("judge", "{{ cookiecutter.name }}")
    assert isinstance(chosen.create(), NativeShareJudge)
