"""A provider that refuses every call (429 or 500) ends a Claude Code attempt typed as what
happened, not as ``timeout``: the real CLI against the scripted server, which refuses them all."""

from __future__ import annotations

import pytest
from refig_harness_claude_code.adapter import ClaudeCodeHarness
from refig_harness_claude_code.pin import PIN
from refig_harness_claude_code.retries import retries_within
from refig_toolkit_agent.install import locate
from refig_toolkit_testing.scripted import Fault
from refig_toolkit_testing.selfcheck import check_harness

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not locate("claude-code", PIN).ok,
                       reason=f"Claude Code {PIN.version} is not installed: "
                              "run `refig harness install claude-code`"),
]


@pytest.mark.parametrize(("fault", "kind"), [("429", "rate_limited"), ("500", "api_error")])
def test_default_retries_fit_inside_the_deadline(fault: str, kind: str) -> None:
    with check_harness(ClaudeCodeHarness(), faults=[Fault(fault)], timeout=40) as outcome:
        result = outcome.result
        assert result.error is not None and result.error.kind == kind, result.error
        log = outcome.dirs.log.read_text()
        assert "deadline reached" not in log  # the CLI gave up by itself
        assert len(outcome.calls) == retries_within(40) + 1 == 6
        assert all(c.error == kind for c in outcome.calls)


def test_retries_cut_by_the_deadline_are_typed_from_the_gateway() -> None:
    # Ten retries cannot fit in 15 s: the deadline ends the CLI while it is still retrying.
    with check_harness(ClaudeCodeHarness(), faults=[Fault("429")], timeout=15,
                       options={"max_retries": "10"}) as outcome:
        result = outcome.result
        assert "deadline reached" in outcome.dirs.log.read_text()
        assert result.error is not None and result.error.kind == "rate_limited", result.error
        assert result.error.retry_after == 0 and result.error.retryable
        assert "deadline ended the CLI's retries" in result.error.message


def test_the_fitted_retries_grow_with_the_time_left() -> None:
    assert [retries_within(s) for s in (1, 10, 40, 120, 1800)] == [0, 3, 5, 6, 10]
