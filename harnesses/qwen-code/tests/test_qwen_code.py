"""The real Qwen Code CLI, at its pinned version, driven by the adapter against the scripted
model server over OpenAI Chat Completions (no network): the adapter interface is not tied to
Anthropic or the Responses API."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import pytest
from PIL import Image
from refig_harness_qwen_code.adapter import QwenCodeHarness
from refig_harness_qwen_code.pin import PIN
from refig_toolkit_agent.install import locate
from refig_toolkit_pptx.gate import inspect_structure
from refig_toolkit_testing import assert_hang_ends_at_deadline
from refig_toolkit_testing.scripted import Fault
from refig_toolkit_testing.selfcheck import check_harness, served_cost

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not locate("qwen-code", PIN).ok,
                       reason=f"Qwen Code {PIN.version} is not installed: "
                              "run `refig harness install qwen-code`"),
]


def test_an_attempt_builds_a_gated_slide_and_records_exactly_what_was_served(
        tmp_path: Path) -> None:
    prices = tmp_path / "prices.json"
    # litellm has no price for this model: the override file supplies it.
    prices.write_text(json.dumps({QwenCodeHarness.example_model: {
        "input_cost_per_token": 1e-6, "output_cost_per_token": 5e-6}}))
    with check_harness(QwenCodeHarness(effort="high"), options={"prices": str(prices)}) as outcome:
        result = outcome.result
        assert result.error is None and result.exit_code == 0
        assert result.cli_version == PIN.version
        structure = inspect_structure(outcome.slide)
        assert structure.gate.passed and structure.gate.slides == 1
        assert outcome.mismatches() == []
        # Three agent calls and no background memory agent call: its settings turned it off.
        assert result.turns == 3 and len(outcome.served) == 3
        assert [s.tools for s in outcome.served] == ["qwen-code", "qwen-code", "none"]
        assert result.cost_usd == pytest.approx(served_cost(
            outcome.served, input=1e-6, output=5e-6, cache_read=1e-6, cache_write=1e-6))
        assert outcome.requests[0]["reasoning"] == {"effort": "high"}
        assert all(r["model"] == QwenCodeHarness.example_model for r in outcome.requests)


@pytest.mark.parametrize(("fault", "kind"), [("400", "bad_request"),
                                             ("malformed", "malformed_response")])
def test_injected_errors_become_typed_failures(fault: str, kind: str) -> None:
    # Qwen Code retries 429 and 5xx seven times with backoff (about 80 s) whatever maxRetries
    # says, so those are covered by the Claude Code and Codex tests and the gateway's own tests.
    with check_harness(QwenCodeHarness(), faults=[Fault(fault)],
                       options={"max_retries": "0"}) as outcome:
        result = outcome.result
        assert result.error is not None and result.error.kind == kind
        assert result.turns == 0 and outcome.mismatches() == []


def test_a_hang_is_ended_at_the_deadline() -> None:
    assert_hang_ends_at_deadline(QwenCodeHarness(), timeout=10)


def _images(request: dict) -> list[dict]:
    """The image parts of a Chat Completions request body."""
    return [part for message in request.get("messages", [])
            if isinstance(message.get("content"), list)
            for part in message["content"] if part.get("type") == "image_url"]


@pytest.mark.parametrize("figure", ["inline", "file"])
def test_the_figure_reaches_the_first_request_only_when_inline(figure: str) -> None:
    # Qwen Code attaches images only for models its table marks as taking them.
    with check_harness(QwenCodeHarness(figure=figure), model="qwen3-vl-plus") as outcome:
        assert outcome.result.error is None, outcome.result.error
        images = _images(outcome.requests[0])
        if figure == "file":
            assert images == []
            return
        [image] = images
        data = base64.b64decode(image["image_url"]["url"].split(",", 1)[1])
        sent = Image.open(io.BytesIO(data))  # Qwen Code re-encodes it as JPEG
        assert sent.size == Image.open(outcome.dirs.workspace / "source.png").size
