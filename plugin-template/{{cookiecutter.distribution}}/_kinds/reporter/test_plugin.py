import csv

from refig.plugin import Attempt, AttemptStatus, Judgment, JudgmentStatus
from refig.plugins import Registry
from refig.store import RunStore

from {{ cookiecutter.module }}.plugin import CsvLeaderboard


def _judgment(artifact, total, repeat=0, status=JudgmentStatus.OK):
    return Judgment(artifact_sha256=artifact, judge="j", judge_key="j", rubric_sha256="r",
                    rubric_version="1", repeat=repeat, status=status, total=total)


def test_leaderboard_ranks_configurations_by_mean_total(tmp_path):
    store = RunStore.create(tmp_path / "run")
    a, b = "a" * 64, "b" * 64
    store.put_many([
        Attempt(task_id="t", config_id="m@h/direct", status=AttemptStatus.SUCCEEDED,
                outputs={"slide": a}),
        Attempt(task_id="t", config_id="m@h/specialized", status=AttemptStatus.SUCCEEDED,
                outputs={"slide": b}),
        _judgment(a, 40.0), _judgment(a, 50.0, repeat=1),
        _judgment(b, 70.0), _judgment(b, None, repeat=1, status=JudgmentStatus.FAILED),
    ])
    path = CsvLeaderboard().report(tmp_path / "run", tmp_path / "out", {})
    rows = list(csv.reader(path.open()))
    assert rows == [["configuration", "judgments", "mean_total"],
                    ["m@h/specialized", "1", "70.00"], ["m@h/direct", "2", "45.00"]]


def test_refig_loads_the_installed_plugin():
    env = {"REFIG_STRICT_PLUGINS": "1", "REFIG_LOAD_PLUGINS": "{{ cookiecutter.distribution }}"}
    chosen = Registry.load(environ=env).resolve("reporter", "{{ cookiecutter.name }}")
    assert isinstance(chosen.create(), CsvLeaderboard)
