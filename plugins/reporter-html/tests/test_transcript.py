"""Transcripts read as conversations: the real CLIs' output (Claude Code stream-json, Codex
exec --json) recorded by a run, and the bounds on what the agent controls."""

from __future__ import annotations

import base64
import io
import json
from typing import Any

import pytest
from PIL import Image
from refig.plugin import Attempt
from refig_reporter_html import transcript
from refig_reporter_html.transcript import conversation, image_data_url


def _outputs(viewed_run: Any, prefix: str) -> tuple[Attempt, bytes, bytes]:
    attempt = next(a for a in viewed_run.store.query(Attempt) if a.config_id.startswith(prefix)
                   and a.task_id == "sample-000")
    read = viewed_run.store.objects.read_bytes
    return attempt, read(attempt.outputs["transcript"]), read(attempt.outputs["calls"])


@pytest.mark.slow
def test_a_claude_code_transcript_pairs_each_turn_with_its_gateway_call(viewed_run: Any) -> None:
    attempt, raw, calls = _outputs(viewed_run, viewed_run.model)
    talk = conversation(raw, calls)
    assert talk.format == "stream-json"
    model = [s for s in talk.steps if s.role == "model"]
    assert len(model) == attempt.turns == 3 and len(talk.calls) == 3
    assert [s.call_index for s in model] == [0, 1, 2]
    assert sum(s.input_tokens or 0 for s in model) == attempt.usage.input_tokens
    assert all(s.latency_seconds is not None for s in model)
    calls = [b for s in model for b in s.blocks if b.kind == "tool_call"]
    assert [b.title for b in calls] == ["Write", "Bash"]
    results = [b.text for s in talk.steps if s.role == "tool" for b in s.blocks]
    assert any("wrote slide.pptx" in r for r in results)
    assert viewed_run.hostile in model[-1].blocks[-1].text  # kept verbatim; the page escapes it


@pytest.mark.slow
def test_a_failed_attempts_transcript_ends_with_its_error(viewed_run: Any) -> None:
    attempt, raw, calls = _outputs(viewed_run, "claude-haiku")
    talk = conversation(raw, calls)
    assert attempt.error is not None and attempt.error.kind == "bad_request"
    assert talk.steps[-1].role == "error"
    assert not any(c.ok for c in talk.calls)


@pytest.mark.slow
def test_a_codex_transcript_shows_commands_and_their_output(viewed_run: Any) -> None:
    _, raw, calls = _outputs(viewed_run, "gpt-5.5")
    talk = conversation(raw, calls)
    assert talk.format == "codex"
    blocks = [b for s in talk.steps for b in s.blocks]
    assert any(b.kind == "tool_call" and "python3 build_slide.py" in b.text for b in blocks)
    assert any(b.kind == "tool_result" and "wrote slide.pptx" in b.text for b in blocks)
    assert any(s.role == "system" and s.input_tokens for s in talk.steps)  # turn usage
    assert len(talk.calls) == 3


def _png() -> str:
    buffer = io.BytesIO()
    Image.new("RGB", (4, 3), "red").save(buffer, format="PNG")
    return base64.b64encode(buffer.getvalue()).decode()


def test_only_real_raster_images_are_inlined() -> None:
    good = _png()
    assert image_data_url("image/png", good) == f"data:image/png;base64,{good}"
    assert image_data_url("image/svg+xml", good) is None  # SVG can carry script
    assert image_data_url("text/html", good) is None
    assert image_data_url("image/png", good + '"><script>') is None
    assert image_data_url("image/png", "not base64!") is None
    assert image_data_url("image/png", "A" * (transcript.MAX_IMAGE_BYTES * 2)) is None


def test_images_the_agent_looked_at_are_shown() -> None:
    event = {"type": "user", "message": {"content": [{"type": "tool_result", "content": [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                     "data": _png()}},
        {"type": "text", "text": "the figure"}]}]}}
    talk = conversation(json.dumps(event).encode(), None)
    kinds = [b.kind for b in talk.steps[0].blocks]
    assert kinds == ["image", "tool_result"] and talk.steps[0].blocks[0].image


def test_a_hostile_transcript_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transcript, "MAX_TEXT", 50)
    monkeypatch.setattr(transcript, "MAX_TRANSCRIPT_BYTES", 2000)
    monkeypatch.setattr(transcript, "MAX_STEPS", 5)
    long = {"type": "assistant", "message": {"id": "m1", "content": [
        {"type": "text", "text": "x" * 500}]}}
    lines = [json.dumps(long), "not json at all", "[1, 2]"] + \
            [json.dumps({"type": "user", "message": {"content": "ok"}})] * 100
    talk = conversation("\n".join(lines).encode(), b"garbage\n{}\n")
    assert talk.cut and len(talk.steps) == 5
    assert talk.steps[0].blocks[0].text.startswith("x" * 50)
    assert "450 more characters" in talk.steps[0].blocks[0].text
    assert talk.calls == []  # unreadable call lines are skipped, not fatal
