"""The offline proxy judge: deterministic, labelled proxy, and hard on a raster paste."""

from __future__ import annotations

import socket

from refig.judging import SelectedJudge, judge_artifacts
from refig.models import GateResult, Judgment, JudgmentStatus
from refig.plugins import Registry
from refig.protocols import Artifact
from refig.rubric import load_rubric
from refig.store import RunStore
from refig_judge_metrics.proxy import MetricsJudge
from refig_toolkit_pptx import Endpoint, ObjectKind, ObjectTree, Rect, SlideObject, object_tree
from refig_toolkit_testing import judge_request

SLIDE = {"slide_width": 12192000, "slide_height": 6858000}


def _artifact(tree, metrics, sha="a" * 64):
    return Artifact(path=None, sha256=sha, gate=GateResult(passed=True), family="figure-to-slide",
                    structure=tree,
                    metrics=metrics)


def honest():
    boxes = [SlideObject(id=i, kind=ObjectKind.AUTO_SHAPE, text=f"Stage {i} encoder block",
                         rect=Rect(x=i * 1e6, y=0, w=9e5, h=5e5)) for i in range(1, 6)]
    links = [SlideObject(id=10 + i, kind=ObjectKind.CONNECTOR, end_arrow="triangle",
                         start=Endpoint(shape_id=i, site=3), end=Endpoint(shape_id=i + 1, site=1))
             for i in range(1, 5)]
    metrics = {"text.recall": 0.85, "text.reference": 1.0, "image.ssim": 0.55,
               "image.ciede2000": 9.0,
               "image.ssim_blank": 0.4, "image.ciede2000_blank": 12.0,
               "flattening.flattened": 0, "flattening.raster_area_ratio": 0.0,
               "connector-audit.connector_count": 4, "connector-audit.bound_connectors": 4,
               "connector-audit.half_bound_connectors": 0, "connector-audit.free_lines": 0}
    return _artifact(ObjectTree(**SLIDE, objects=(*boxes, *links)), metrics, "b" * 64)


def paste():
    picture = SlideObject(id=1, kind=ObjectKind.PICTURE, rect=Rect(x=0, y=0, w=12192000,
                                                                    h=6858000))
    metrics = {"text.recall": 0.0, "image.ssim": 0.97, "image.ciede2000": 1.0,
               "flattening.flattened": 1, "flattening.raster_area_ratio": 1.0,
               "connector-audit.connector_count": 0, "connector-audit.bound_connectors": 0,
               "connector-audit.half_bound_connectors": 0, "connector-audit.free_lines": 0}
    return _artifact(ObjectTree(**SLIDE, objects=(picture,)), metrics, "c" * 64)


def scores(judgment):
    return {s.axis: s.score for s in judgment.scores}


def test_a_paste_scores_far_below_an_honest_reconstruction(tmp_path):
    store = RunStore.create(tmp_path / "run")
    judge = Registry.load(warn=lambda line: None).resolve("judge", "metrics").create()
    judge_artifacts(store, [honest(), paste()], [SelectedJudge("metrics", judge)], quiet=True,
                    rubric=load_rubric(family="figure-to-slide"))
    stored = store.query(Judgment)
    good = next(j for j in stored if j.artifact_sha256 == "b" * 64)
    bad = next(j for j in stored if j.artifact_sha256 == "c" * 64)
    assert good.proxy and bad.proxy and good.cost_usd == 0
    assert scores(good)["editability"] >= 20 and scores(bad)["editability"] == 0
    assert bad.capped and bad.total <= 25 < 50 < good.total
    # The paste earns only what it copied (layout and visual detail), all of it under the cap.
    assert scores(bad)["layout"] == 15 and scores(bad)["text"] == 0


def test_each_axis_follows_its_documented_formula():
    judgment = MetricsJudge().judge(judge_request(honest(), "", 0))
    assert judgment.status is JudgmentStatus.OK and judgment.proxy
    assert scores(judgment) == {
        "text": 17,                 # 20 x 0.85
        "semantic_structure": 13,   # 30 x 0.5 unseen x 0.85 text x (0.5 + 0.5 x 4/4 bound)
        "layout": 4,                # 15 x (0.55 - 0.4 empty slide) / (1 - 0.4)
        "editability": 21,          # 25 x 0.85 text x (1 - 0) x (0.6 + 0.4 x 1)
        "visual_detail": 3,         # 10 x (0.5 x 0.25 + 0.5 x (1 - 9/12 empty slide))
    }
    assert judgment.total == 58
    assert all(s.rationale.startswith("proxy: ") for s in judgment.scores)


def test_text_against_ocr_is_marked_and_moves_no_total(tmp_path):
    """Without labels the source's words come from OCR, which a rebuild that read the figure with
    the same OCR matches by construction: the axis is stored as ``reference="ocr"``, the total
    leaves it out (scaled to the full range), and no other axis credits OCR recall."""
    base = honest()
    read_by_ocr = _artifact(object_tree(base), {**base.metrics, "text.reference": 0.0})
    parrot = _artifact(object_tree(base),
                       {**base.metrics, "text.reference": 0.0, "text.recall": 1.0}, "d" * 64)
    judgment = MetricsJudge().judge(judge_request(read_by_ocr, "", 0))
    by_axis = {s.axis: s for s in judgment.scores}
    assert by_axis["text"].reference == "ocr" and by_axis["text"].score == 17
    assert "measured against OCR" in by_axis["text"].rationale
    assert {s.axis for s in judgment.scores if s.reference} == {"text"}
    # structure and editability count native words (20 of 30), not OCR recall
    assert by_axis["semantic_structure"].score == 10  # 30 x 0.5 x 20/30 x 1
    assert by_axis["editability"].score == 17         # 25 x 20/30 x 1 x 1
    exact = sum(s.score for s in judgment.scores if s.reference is None)
    assert judgment.total == exact * 100 / 80
    # a perfect OCR match earns the same total: the circular number moves nothing
    assert MetricsJudge().judge(judge_request(parrot, "", 0)).total == judgment.total
    # and the stored judgment keeps the mark (the core accepts the total it was given)
    store = RunStore.create(tmp_path / "run")
    judge = Registry.load(warn=lambda line: None).resolve("judge", "metrics").create()
    judge_artifacts(store, [read_by_ocr], [SelectedJudge("metrics", judge)], quiet=True,
                    rubric=load_rubric(family="figure-to-slide"))
    stored = store.query(Judgment)[0]
    assert stored.status is JudgmentStatus.OK, stored.error
    assert stored.total == judgment.total
    assert next(s for s in stored.scores if s.axis == "text").reference == "ocr"


def test_missing_metrics_fall_back_and_say_so():
    bare = _artifact(object_tree(honest()), {})
    judgment = MetricsJudge().judge(judge_request(bare, "", 0))
    by_axis = {s.axis: s for s in judgment.scores}
    assert "no OCR recall" in by_axis["text"].rationale
    assert by_axis["text"].score == 7  # 20 x 0.5 x min(1, 20 words / 30)
    assert by_axis["layout"].score == 0 and "no image similarity" in by_axis["layout"].rationale


def test_the_proxy_is_deterministic_and_offline(monkeypatch):
    def no_network(*args, **kwargs):
        raise AssertionError("the metrics judge must not open sockets")

    monkeypatch.setattr(socket.socket, "connect", no_network)  # a tripwire, not a stand-in
    first = MetricsJudge().judge(judge_request(honest(), "", 0))
    second = MetricsJudge().judge(judge_request(honest(), "", 1))
    assert first.scores == second.scores and first.total == second.total


def test_options_for_every_judge_are_ignored():
    assert MetricsJudge(temperature="0").key == MetricsJudge().key


def test_a_deterministic_judge_is_scored_once_whatever_the_repeats(tmp_path):
    store = RunStore.create(tmp_path / "run")
    judge = MetricsJudge()
    summary = judge_artifacts(store, [honest(), paste()], [SelectedJudge("metrics", judge)],
                              repeats=3, quiet=True, rubric=load_rubric(family="figure-to-slide"))
    stored = store.query(Judgment)
    assert sorted(j.repeat for j in stored) == [0, 0]
    assert all(j.deterministic and j.sight for j in stored)
    ledger = summary.ledgers[0]
    assert ledger.judged == 2 and ledger.collapsed_repeats == 4
    assert "deterministic judge: scored once" in ledger.line()
