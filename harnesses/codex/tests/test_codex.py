"""The real Codex CLI, at its pinned version, driven by the adapter against the scripted model
server (no network): a real one-slide deck, exact accounting, typed failures, a deadline."""

from __future__ import annotations

import base64
import io
import json
import tempfile
from pathlib import Path

import pytest
from PIL import Image
from refig_harness_codex.adapter import CodexHarness
from refig_harness_codex.pin import PIN
from refig_toolkit_agent.install import locate
from refig_toolkit_pptx.gate import inspect_structure
from refig_toolkit_testing import assert_hang_ends_at_deadline
from refig_toolkit_testing.scripted import Fault
from refig_toolkit_testing.selfcheck import check_harness, served_cost

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not locate("codex", PIN).ok,
                       reason=f"Codex CLI {PIN.version} is not installed: "
                              "run `refig harness install codex`"),
]


def test_an_attempt_builds_a_gated_slide_and_records_exactly_what_was_served(
        tmp_path: Path) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({CodexHarness.example_model: {
        "input_cost_per_token": 5e-6, "output_cost_per_token": 3e-5,
        "cache_read_input_token_cost": 5e-7}}))
    with check_harness(CodexHarness(effort="xhigh"), options={"prices": str(prices)}) as outcome:
        result = outcome.result
        assert result.error is None and result.exit_code == 0
        assert result.cli_version == PIN.version
        structure = inspect_structure(outcome.slide)
        assert structure.gate.passed and structure.gate.slides == 1
        assert structure.tree is not None and structure.tree.counts()["bound_connectors"] == 2
        assert outcome.mismatches() == []
        assert result.turns == 3
        # Codex's own apply_patch and exec_command tools carried the script.
        assert [s.tools for s in outcome.served] == ["codex", "codex", "none"]
        assert result.cost_usd == pytest.approx(served_cost(
            outcome.served, input=5e-6, output=3e-5, cache_read=5e-7, cache_write=5e-6))
        first = outcome.requests[0]
        assert first["reasoning"]["effort"] == "xhigh"
        assert first["model"] == CodexHarness.example_model
        assert "input_image" in json.dumps(first["input"])  # the source figure is attached
        assert not any(t.get("type") == "web_search" for t in first["tools"])
        codex_home = outcome.dirs.home / ".codex"
        assert 'wire_api = "responses"' in (codex_home / "config.toml").read_text()
        assert not codex_home.resolve().is_relative_to(Path(tempfile.gettempdir()).resolve())
        report = CodexHarness().read_report(result.outputs["transcript"])
        assert report.finished and report.error is None
        assert report.usage is not None and report.usage.output_tokens == result.usage.output_tokens


@pytest.mark.parametrize(("fault", "kind"), [
    ("400", "bad_request"), ("429", "rate_limited"), ("500", "api_error"),
    ("malformed", "malformed_response"), ("cut", "stream_error"),
])
def test_injected_errors_become_typed_failures(fault: str, kind: str) -> None:
    with check_harness(CodexHarness(), faults=[Fault(fault)],
                       options={"max_retries": "0"}) as outcome:
        result = outcome.result
        assert result.error is not None and result.error.kind == kind
        assert result.exit_code != 0
        assert result.turns == 0 and outcome.mismatches() == []


def test_a_hang_is_ended_at_the_deadline() -> None:
    assert_hang_ends_at_deadline(CodexHarness(), timeout=8)


def _images(request: dict) -> list[dict]:
    """The image parts of a Responses API request body's input."""
    return [part for item in request.get("input", []) if isinstance(item, dict)
            and isinstance(item.get("content"), list)
            for part in item["content"] if part.get("type") == "input_image"]


@pytest.mark.parametrize("figure", ["inline", "file"])
def test_the_figure_reaches_the_first_request_only_when_inline(figure: str) -> None:
    with check_harness(CodexHarness(figure=figure)) as outcome:
        assert outcome.result.error is None, outcome.result.error
        images = _images(outcome.requests[0])
        if figure == "file":
            assert images == []
            assert "--image" not in outcome.dirs.log.read_text()
            return
        [image] = images
        assert image["image_url"].startswith("data:image/")
        # Codex may re-encode the figure; what it sends decodes to the source's pixels.
        data = base64.b64decode(image["image_url"].split(",", 1)[1])
        sent = Image.open(io.BytesIO(data))
        source = Image.open(outcome.dirs.workspace / "source.png")
        assert sent.size == source.size
