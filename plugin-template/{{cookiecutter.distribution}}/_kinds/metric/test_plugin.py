from pathlib import Path

from refig.plugin import Artifact, GateResult
from refig.plugins import Registry
from refig_toolkit_pptx import ObjectKind, ObjectTree, SlideObject

from {{ cookiecutter.module }}.plugin import WordCount


def _artifact(tree):
    return Artifact(path=Path("slide.pptx"), sha256="0" * 64, structure=tree,
                    gate=GateResult(passed=tree is not None))


def test_counts_native_words_including_groups():
    tree = ObjectTree(slide_width=100, slide_height=100, objects=(
        SlideObject(kind=ObjectKind.TEXT_BOX, text="Image encoder"),
        SlideObject(kind=ObjectKind.GROUP, children=(
            SlideObject(kind=ObjectKind.AUTO_SHAPE, text="Cross attention layer"),
            SlideObject(kind=ObjectKind.CONNECTOR),
        )),
    ))
    values = {v.name: v.value for v in WordCount().compute(_artifact(tree))}
    assert values == {"native_words": 5.0, "text_objects": 2.0}


def test_missing_tree_gives_none_with_a_reason():
    values = list(WordCount().compute(_artifact(None)))
    assert [v.value for v in values] == [None, None]
    assert "gate" in values[0].detail["reason"]


def test_refig_loads_the_installed_plugin():
    env = {"REFIG_STRICT_PLUGINS": "1", "REFIG_LOAD_PLUGINS": "{{ cookiecutter.distribution }}"}
    chosen = Registry.load(environ=env).resolve("metric", "{{ cookiecutter.name }}")
    assert chosen.distribution == "{{ cookiecutter.distribution }}"
    assert isinstance(chosen.create(), WordCount)
