"""From a folder in PPTArena's released layout to PPTArena's tables: import, the identity and
oracle baselines and a hand-edited deck run, evaluated with real LibreOffice renders and the
offline proxy judge, and read back against what the edits were."""

from __future__ import annotations

import io
import shutil

import pytest
from pptx import Presentation
from pptx.util import Pt
from refig.cli import run as refig
from refig.models import Configuration
from refig.plugin import Attempt, AttemptStatus, MetricValue, Suite
from refig.store import RunStore
from refig_toolkit_analysis import analysis_for

from .release import make_release

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("soffice") is None, reason="needs LibreOffice")]


def _half_normalised(original: bytes) -> bytes:
    """The subtitle edit done on the first two of four slides only."""
    prs = Presentation(io.BytesIO(original))
    done = 0
    for slide in prs.slides:
        for shape in slide.shapes:
            if shape.name == "Subtitle" and done < 2:
                for para in shape.text_frame.paragraphs:
                    for run in para.runs:
                        run.font.size = Pt(20)
                done += 1
    out = io.BytesIO()
    prs.save(out)
    return out.getvalue()


def test_import_run_evaluate_report(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("REFIG_CACHE_DIR", str(tmp_path / "cache"))
    release, suite, run = tmp_path / "release", tmp_path / "suite", tmp_path / "run"
    make_release(release, ("table-cell", "normalise-subtitles"),
                 hard=("case 2: normalise-subtitles",))
    assert refig(["suite", "build", "pptarena", "--from", str(release), "--out", str(suite)]) == 0
    tasks = Suite.load(suite).tasks
    assert [t.meta["hard"] for t in tasks] == [False, True]
    store = RunStore.create(run)
    store.put_many(tasks)
    decks = {"identity": "deck", "oracle": "target"}
    for task in tasks:  # every input, as `refig run` stores them
        for role in task.inputs:
            store.objects.put_bytes(Suite.load(suite).input_path(task, role).read_bytes())
    for harness, role in decks.items():  # what the baseline harnesses return
        config = Configuration(model="none", harness=harness, workflow="direct")
        store.put(config)
        for task in tasks:
            data = (suite / task.input(role).path).read_bytes()
            store.put(Attempt(task_id=task.id, config_id=config.id,
                              status=AttemptStatus.SUCCEEDED,
                              outputs={"deck": store.objects.put_bytes(data)}))
    edited = _half_normalised((suite / tasks[1].input("deck").path).read_bytes())
    config = Configuration(model="hand", harness="edited", workflow="direct")
    store.put(config)
    store.put(Attempt(task_id=tasks[1].id, config_id=config.id, status=AttemptStatus.SUCCEEDED,
                      outputs={"deck": store.objects.put_bytes(edited)}))
    assert refig(["evaluate", str(run), "--judge", "deck-metrics", "-q"]) == 0

    recall = {(v.artifact_sha256, v.reference_sha256): v.value
              for v in store.iter(MetricValue, metric="deck-diff", name="edit_recall")}
    by_harness = {}
    for attempt in store.iter(Attempt):
        harness = attempt.config_id.split("@")[1].split("/")[0]
        sha = attempt.outputs["deck"]
        by_harness.setdefault(harness, []).append(
            next(v for (a, _), v in recall.items() if a == sha))
    assert by_harness["identity"] == [0.0, 0.0]
    assert by_harness["oracle"] == [1.0, 1.0]
    assert by_harness["edited"] == [0.5]

    assert refig(["report", str(run)]) == 0  # the terminal report; HTML pages: the viewer
    assert "Deck editing, full suite" in capsys.readouterr().out
    analysis = analysis_for(run, {"judge": "deck-metrics", "resamples": 200})
    tables = {t.key: t for t in analysis.tables}
    full = {row["config"]: row for row in tables["deck-edit"].rows}
    oracle = next(k for k in full if "oracle" in k)
    assert oracle.endswith("(oracle)")
    identity = next(k for k in full if "@identity/" in k)
    assert full[oracle]["if"] == 5 and full[identity]["if"] == 0
    hard = {row["config"]: row for row in tables["deck-edit-hard"].rows}
    assert hard[next(k for k in hard if "@edited/" in k)]["judged"] == "1 / 1"
