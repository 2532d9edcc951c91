"""The deck judges on real renderings: the LLM judge through a stand-in on 127.0.0.1 (identity
and oracle kept apart, re-asking, typed failures, one VQ call, evidence modes) and the proxy."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from refig.plugin import Artifact, Evidence, GateResult, JudgeRequest, Task
from refig_family_deck_edit.cases import DECK, EDIT_SPEC, STYLE_TARGET, TARGET
from refig_family_deck_edit.hooks import RUBRIC
from refig_family_deck_edit.judges.llm import build_deck_judge
from refig_family_deck_edit.judges.proxy import DeckMetricsJudge
from refig_family_deck_edit.references import reference_pages

from .conftest import read
from .standin import DeckJudgeStandIn

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("soffice") is None, reason="needs LibreOffice")]


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("REFIG_CACHE_DIR", str(tmp_path / "cache"))


def _artifact(case, original: Path, target: Path, prediction: Path, tmp_path: Path) -> Artifact:
    spec = tmp_path / f"{case.id}-spec.json"
    import json

    spec.write_text(json.dumps(case.spec))
    style = tmp_path / f"{case.id}-style.txt"
    style.write_text(case.style_target)
    task = Task(id=case.id, family="deck-edit", instruction=case.instruction)
    return Artifact(path=prediction, sha256=hashlib.sha256(prediction.read_bytes()).hexdigest(),
                    gate=GateResult(passed=True), family="deck-edit",
                    structure=read(prediction), pages=reference_pages(prediction),
                    references={DECK: original, TARGET: target, EDIT_SPEC: spec,
                                STYLE_TARGET: style}, task=task)


def _judge(artifact: Artifact, judge, repeat: int = 0):
    return judge.judge(JudgeRequest(artifact=artifact, evidence=Evidence(), repeat=repeat,
                                    rubric_path=RUBRIC))


def _scores(judgment) -> tuple[float, float]:
    by = {s.axis: s.score for s in judgment.scores}
    return by["instruction_following"], by["visual_quality"]


def test_the_llm_judge_keeps_identity_and_oracle_apart(write_case, tmp_path):
    case, original, target = write_case("normalise-subtitles")
    identity = _artifact(case, original, target, original, tmp_path)
    oracle = _artifact(case, original, target, target, tmp_path)
    with DeckJudgeStandIn() as server:
        judge = build_deck_judge("deck-llm:openai/stand-in",
                                 {"api_base": server.url, "api_key": "k"},
                                 {"model": "openai/stand-in"})
        low, high = _judge(identity, judge), _judge(oracle, judge)
        assert str(low.status) == "ok" and str(high.status) == "ok", (low.error, high.error)
        assert _scores(low) == (0, 2) and _scores(high) == (5, 5)
        # four subtitles changed: one IF call, then one VQ call showing the four slides
        assert high.calls == 2 and low.calls == 2
        vq_images = sum(1 for p in server.bodies[-1]["messages"][1]["content"]
                        if p["type"] == "image_url")
        assert vq_images == 8


def test_a_bad_answer_is_re_asked_and_a_dead_server_is_a_typed_failure(write_case, tmp_path):
    case, original, target = write_case("table-cell")
    oracle = _artifact(case, original, target, target, tmp_path)
    with DeckJudgeStandIn(script={0: "garbage"}) as server:
        judge = build_deck_judge("deck-llm:openai/stand-in",
                                 {"api_base": server.url, "api_key": "k"},
                                 {"model": "openai/stand-in"})
        judgment = _judge(oracle, judge)
        assert str(judgment.status) == "ok" and judgment.calls == 3
        assert "rejected" in server.bodies[1]["messages"][-1]["content"]
        assert case.style_target in server.bodies[0]["messages"][1]["content"][0]["text"]
    with DeckJudgeStandIn(script={0: "error"}) as server:
        judge = build_deck_judge("deck-llm:openai/stand-in",
                                 {"api_base": server.url, "api_key": "k"},
                                 {"model": "openai/stand-in"})
        judgment = _judge(oracle, judge)
        assert str(judgment.status) == "failed" and judgment.error.kind == "server_error"
        assert judgment.error.retryable


def test_evidence_modes_change_what_each_call_sees(write_case, tmp_path):
    case, original, target = write_case("table-cell")
    identity = _artifact(case, original, target, original, tmp_path)
    with DeckJudgeStandIn() as server:
        base = {"api_base": server.url, "api_key": "k"}
        nodiff = build_deck_judge("deck-llm:m", {**base, "evidence": "dual-nodiff"},
                                  {"model": "openai/m"})
        single = build_deck_judge("deck-llm:m", {**base, "evidence": "single"},
                                  {"model": "openai/m"})
        assert nodiff.key != single.key and nodiff.label.endswith("[evidence=dual-nodiff]")
        _judge(identity, nodiff)
        if_call = server.bodies[0]["messages"][1]["content"]
        assert "Structural diffs" not in if_call[0]["text"]
        assert sum(p["type"] == "image_url" for p in if_call) == 3  # original, target, edited
        judgment = _judge(identity, single)
        schema = server.bodies[-1]["response_format"]["json_schema"]["schema"]
        assert {"instruction_following", "visual_quality"} <= set(schema["properties"])
        assert judgment.calls == 1 and _scores(judgment) == (0, 2)


def test_the_proxy_gives_identity_a_low_if_and_the_oracle_full_marks(write_case, tmp_path):
    proxy = DeckMetricsJudge()
    # table-cell: one number changes, SSIM 0.9988; the old VQ (mean SSIM against the target)
    # gave the untouched original 5 there, a number true by construction
    for recipe in ("translate-titles", "align-steps+recolour-steps", "table-cell",
                   "notes-then-delete-staging"):  # the last: a slide removed on both sides
        case, original, target = write_case(recipe)
        low = _judge(_artifact(case, original, target, original, tmp_path), proxy)
        high = _judge(_artifact(case, original, target, target, tmp_path), proxy)
        assert low.proxy and high.proxy and low.calls == 0
        assert _scores(low) == (0, 0) and _scores(high) == (5, 5), recipe
        assert all(s.rationale.startswith("proxy: ") for s in high.scores)


def test_the_proxy_vq_says_when_no_visible_change_was_asked_for(write_case, tmp_path):
    case, original, target = write_case("alt-text")  # invisible: selected by structure only
    judgment = _judge(_artifact(case, original, target, original, tmp_path), DeckMetricsJudge())
    vq = next(s for s in judgment.scores if s.axis == "visual_quality")
    assert vq.score == 5 and "no visible change was asked for or made" in vq.rationale


def test_the_proxy_vq_sees_a_fill_in_the_wrong_colour(write_case, tmp_path):
    """Grey SSIM cannot tell a blue fill from a red one of similar lightness; VQ is in colour."""
    from pptx import Presentation
    from pptx.dml.color import RGBColor

    case, original, target = write_case("recolour-steps")
    hex_ = case.spec["expect"][0]["value"].lstrip("#")
    wanted = tuple(int(hex_[i:i + 2], 16) for i in (0, 2, 4))

    def grey(c: tuple[int, ...]) -> int:  # Pillow's "L": ITU-R 601-2 luma
        return round((299 * c[0] + 587 * c[1] + 114 * c[2]) / 1000)

    # the colour farthest from the asked one that turns the same grey
    wrong = "".join(f"{v:02X}" for v in max(
        ((r, g, b) for r in range(0, 256, 5) for g in range(0, 256, 5) for b in range(0, 256, 5)
         if grey((r, g, b)) == grey(wanted)),
        key=lambda c: sum(abs(x - y) for x, y in zip(c, wanted, strict=True))))
    prs = Presentation(str(original))
    for shape in prs.slides[4].shapes:
        if shape.name.startswith("Step "):
            shape.fill.fore_color.rgb = RGBColor.from_string(wrong)
    edited = tmp_path / "wrong-colour.pptx"
    prs.save(edited)
    judgment = _judge(_artifact(case, original, target, edited, tmp_path), DeckMetricsJudge())
    assert _scores(judgment)[1] < 5
