"""A case's VQ is one judgment over its selected slides, never a minimum over calls: the LLM judge
through the deck stand-in on 127.0.0.1, on a synthetic nine-slide selection (no renderer)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from refig.plugin import Artifact, Evidence, GateResult, JudgeRequest, Task, UsageError
from refig_family_deck_edit.compare import EditComparison
from refig_family_deck_edit.context import DeckContext
from refig_family_deck_edit.hooks import RUBRIC
from refig_family_deck_edit.judges import llm
from refig_family_deck_edit.judges.llm import build_deck_judge
from refig_family_deck_edit.selection import SelectedSlide, Selection

from .standin import DeckJudgeStandIn

SLIDES = 9


def _png(path: Path, colour: str) -> Path:
    Image.new("RGB", (8, 6), colour).save(path)
    return path


def _context(tmp_path: Path, wrong: set[int]) -> DeckContext:
    """Nine selected slides; the edited rendering of each slide in ``wrong`` differs from its
    target's (the stand-in scores a call 5 when every pair matches, else 2)."""
    target = tuple(_png(tmp_path / f"t{n}.png", "white") for n in range(1, SLIDES + 1))
    edited = tuple(_png(tmp_path / f"e{n}.png", "red" if n in wrong else "white")
                   for n in range(1, SLIDES + 1))
    slides = tuple(SelectedSlide(n, n, n, ("ssim",)) for n in range(1, SLIDES + 1))
    empty = EditComparison(requested=(), done=(), achieved=(), missed=(), collateral=())
    none: Any = None
    return DeckContext(none, none, none, empty, None,
                       {"original": target, "target": target, "prediction": edited},
                       Selection(slides=slides, considered=SLIDES))


def _judge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, wrong: set[int],
           **options: str) -> tuple[Any, list[dict[str, Any]]]:
    context = _context(tmp_path, wrong)
    monkeypatch.setattr(llm, "artifact_context", lambda artifact: context)
    deck = tmp_path / "edited.pptx"
    deck.write_bytes(b"stand-in")
    artifact = Artifact(path=deck, sha256=hashlib.sha256(b"stand-in").hexdigest(),
                        gate=GateResult(passed=True), family="deck-edit",
                        task=Task(id="nine", family="deck-edit", instruction="recolour"))
    with DeckJudgeStandIn() as server:
        judge = build_deck_judge("deck-llm:openai/stand-in",
                                 {"api_base": server.url, "api_key": "k", **options},
                                 {"model": "openai/stand-in"})
        judgment = judge.judge(JudgeRequest(artifact=artifact, evidence=Evidence(), repeat=0,
                                            rubric_path=RUBRIC))
        bodies = list(server.bodies)
    assert str(judgment.status) == "ok", judgment.error
    return judgment, bodies


def _vq(judgment: Any) -> float:
    return next(s.score for s in judgment.scores if s.axis == "visual_quality")


def _images(body: dict[str, Any]) -> int:
    return sum(part["type"] == "image_url" for part in body["messages"][1]["content"])


def test_nine_slides_are_one_vq_call_and_one_score(tmp_path, monkeypatch):
    judgment, bodies = _judge(tmp_path, monkeypatch, wrong={2})
    # one IF call, then one VQ call showing all nine slides as target and edited
    assert judgment.calls == 2 and [_images(b) for b in bodies] == [0, 2 * SLIDES]
    assert _vq(judgment) == 2  # the stand-in's one verdict on the whole selection


def test_an_image_limit_splits_evenly_and_weighs_each_slide_never_the_minimum(tmp_path,
                                                                              monkeypatch):
    # 8 images a call = 4 slides: the fewest calls are 3, of 3 slides each (not 4, 4, 1)
    judgment, bodies = _judge(tmp_path, monkeypatch, wrong={8}, max_images="8")
    assert [_images(b) for b in bodies] == [0, 6, 6, 6]
    # calls score 5, 5 and 2 (slide 8 is in the third); the slide-weighted mean, computed
    # directly, and not the old minimum (2)
    parts = [(5, 3), (5, 3), (2, 3)]
    expected = sum(score * n for score, n in parts) / sum(n for _, n in parts)
    assert _vq(judgment) == pytest.approx(expected) == 4.0
    assert _vq(judgment) != min(score for score, _ in parts)
    assert "slide-weighted mean of 3 calls" in next(
        s.rationale for s in judgment.scores if s.axis == "visual_quality")
    # uneven parts weigh by their sizes: 10 images a call = 5 slides, parts of 5 and 4 slides
    judgment, bodies = _judge(tmp_path, monkeypatch, wrong={9}, max_images="10")
    assert [_images(b) for b in bodies] == [0, 10, 8]
    assert _vq(judgment) == pytest.approx((5 * 5 + 2 * 4) / 9)


def test_the_old_chunk_option_and_a_limit_below_one_slide_are_refused():
    with pytest.raises(UsageError, match="chunk is gone"):
        build_deck_judge("deck-llm:m", {"chunk": "4"}, {"model": "openai/m"})
    with pytest.raises(UsageError, match="cannot show one slide"):
        build_deck_judge("deck-llm:m", {"max_images": "1"}, {"model": "openai/m"})
    with pytest.raises(UsageError, match="not a whole number"):
        build_deck_judge("deck-llm:m", {"max_images": "many"}, {"model": "openai/m"})


def test_a_call_that_cannot_be_split_fails_typed_past_the_limit(tmp_path, monkeypatch):
    context = _context(tmp_path, wrong=set())
    monkeypatch.setattr(llm, "artifact_context", lambda artifact: context)
    deck = tmp_path / "edited.pptx"
    deck.write_bytes(b"x")
    artifact = Artifact(path=deck, sha256="0" * 64, gate=GateResult(passed=True),
                        family="deck-edit", task=Task(id="nine", family="deck-edit"))
    judge = build_deck_judge("deck-llm:m", {"evidence": "single", "max_images": "8",
                                            "api_base": "http://127.0.0.1:9/v1"},
                             {"model": "openai/m"})
    judgment = judge.judge(JudgeRequest(artifact=artifact, evidence=Evidence(), repeat=0,
                                        rubric_path=RUBRIC))
    assert str(judgment.status) == "failed" and judgment.error.kind == "too_many_images"
    assert judgment.calls == 0 and "evidence=dual" in judgment.error.message
