"""The family's own stages on an imported suite, without the run store: inspect, render every
slide with the real LibreOffice renderer, fold the gate, measure, judge with the proxy and with a
judge stand-in, and build PPTArena's table numbers, for identity, oracle and a hand-edited deck."""

from __future__ import annotations

import hashlib
import io
import shutil
from pathlib import Path

import pytest
from pptx import Presentation
from pptx.util import Pt
from refig.models import Page
from refig.plugin import Artifact, JudgeRequest, Render
from refig.plugins import Registry
from refig.records import PluginKind
from refig_family_deck_edit.family import DeckEdit
from refig_family_deck_edit.hooks import RUBRIC
from refig_family_deck_edit.judges.llm import build_deck_judge
from refig_family_deck_edit.judges.proxy import DeckMetricsJudge
from refig_family_deck_edit.metric import DeckDiffMetric
from refig_family_deck_edit.pptarena import build_pptarena
from refig_family_deck_edit.report.scores import Case, Scored, summarise

from .release import make_release
from .standin import DeckJudgeStandIn

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("soffice") is None, reason="needs LibreOffice")]


def _half(original: bytes, out: Path) -> Path:
    prs = Presentation(io.BytesIO(original))
    done = 0
    for slide in prs.slides:
        for shape in slide.shapes:
            if shape.name == "Subtitle" and done < 2:
                for para in shape.text_frame.paragraphs:
                    for run in para.runs:
                        run.font.size = Pt(20)
                done += 1
    prs.save(out)
    return out


def _evaluate(family, renderer, path: Path, task, references, tmp_path) -> Artifact:
    gate, structure = family.inspect(path, task)
    [output] = renderer.render([family.render_job(path, task)], tmp_path / "pages")
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    pages = tuple(Page(index=k, png_sha256=hashlib.sha256(p.read_bytes()).hexdigest(),
                       width_px=1600, height_px=900) for k, p in enumerate(output.pages))
    render = Render(artifact_sha256=sha, renderer="libreoffice", settings=renderer.settings,
                    pages=pages, error=output.error)
    return Artifact(path=path, sha256=sha, gate=family.fold_gate(gate, render),
                    family="deck-edit", structure=structure, pages=output.pages,
                    references=references, task=task)


def test_identity_oracle_and_an_edit_through_every_stage(tmp_path, monkeypatch):
    monkeypatch.setenv("REFIG_CACHE_DIR", str(tmp_path / "cache"))
    make_release(tmp_path / "release", ("normalise-subtitles", "table-cell"),
                 hard=("case 1: normalise-subtitles",))
    suite = build_pptarena(tmp_path / "suite", tmp_path / "release")
    family = DeckEdit()
    renderer = Registry.load().resolve(PluginKind.RENDERER, "libreoffice").create()
    judge = DeckMetricsJudge()
    cases: dict[tuple[str, str], Case] = {}
    recalls: dict[tuple[str, str], float] = {}
    with renderer, DeckJudgeStandIn() as server:
        llm = build_deck_judge("deck-llm:m", {"api_base": server.url, "api_key": "k"},
                               {"model": "openai/m"})
        llm_scores = {}
        for task in suite.tasks:
            references = {role: suite.input_path(task, role) for role in task.inputs}
            decks = {"identity": references["deck"], "oracle": references["target"]}
            if task.meta["hard"]:
                original = references["deck"].read_bytes()
                decks["edited"] = _half(original, tmp_path / f"{task.id}-edited.pptx")
            for config, path in decks.items():
                artifact = _evaluate(family, renderer, path, task, references, tmp_path)
                assert artifact.gate.passed and len(artifact.pages) == 10  # hidden slide too
                values = {v.name: v for v in DeckDiffMetric().compute(artifact)}
                recalls[(config, task.id)] = values["edit_recall"].value
                request = JudgeRequest(artifact=artifact, evidence=family.evidence(artifact),
                                       repeat=0, rubric_path=RUBRIC)
                judged = judge.judge(request)
                scores = {s.axis: s.score for s in judged.scores}
                cases[(config, task.id)] = Case(config, task.id, [Scored(
                    0, scores["instruction_following"], scores["visual_quality"])])
                llm_scores[(config, task.id)] = {
                    s.axis: s.score for s in llm.judge(request).scores}
    hard, easy = (t.id for t in sorted(suite.tasks, key=lambda t: not t.meta["hard"]))
    assert recalls[("identity", hard)] == recalls[("identity", easy)] == 0.0
    assert recalls[("oracle", hard)] == recalls[("oracle", easy)] == 1.0
    assert recalls[("edited", hard)] == 0.5  # two subtitles of four
    assert llm_scores[("oracle", easy)] == {"instruction_following": 5, "visual_quality": 5}
    assert llm_scores[("identity", easy)]["instruction_following"] == 0
    assert llm_scores[("edited", hard)]["instruction_following"] in (2, 3)
    rows = {r.config: r for r in summarise(cases, ["identity", "oracle", "edited"],
                                           [easy, hard], oracles=["oracle"])}
    assert rows["oracle"].instruction == 5 and rows["oracle"].oracle
    assert rows["identity"].instruction == 0
    # the edited configuration has one case of two: its missing case counts 0 in the system
    assert rows["edited"].judged == 1 and rows["edited"].system < rows["edited"].case
    hard_only = {r.config: r for r in summarise(cases, ["edited"], [hard])}
    assert hard_only["edited"].system == hard_only["edited"].case
