from refig.plugin import Suite
from refig.plugins import Registry

from {{ cookiecutter.module }}.plugin import build_suite


def test_builds_a_loadable_suite_with_annotations(tmp_path):
    suite = build_suite(tmp_path / "suite", n=2, seed=7)
    again = Suite.load(tmp_path / "suite")
    assert [t.id for t in again.tasks] == ["fig-000", "fig-001"]
    for task in suite.tasks:
        assert suite.input_path(task, "figure").stat().st_size > 1000
        annotation = suite.annotation(task)
        assert len(annotation["edges"]) == len(annotation["nodes"]) - 1


def test_same_seed_same_figures(tmp_path):
    first = build_suite(tmp_path / "a", n=2, seed=3)
    second = build_suite(tmp_path / "b", n=2, seed=3)
    assert [t.inputs for t in first.tasks] == [t.inputs for t in second.tasks]


def test_refig_loads_the_installed_plugin(tmp_path):
    env = {"REFIG_STRICT_PLUGINS": "1", "REFIG_LOAD_PLUGINS": "{{ cookiecutter.distribution }}"}
    chosen = Registry.load(environ=env).resolve("suite", "{{ cookiecutter.name }}")
    chosen.record.command(out=tmp_path / "cli", n=1, seed=0)
    assert len(Suite.load(tmp_path / "cli").tasks) == 1
