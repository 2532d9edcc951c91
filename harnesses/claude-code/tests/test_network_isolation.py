"""From inside the sandbox, with the real Claude Code CLI: the agent's own Bash tool tries a
model server on the host's loopback directly and is refused, while every model call goes through
the recording gateway (the gateway's record matches the scripted server's log exactly)."""

from __future__ import annotations

import pytest
from refig.running.sandbox import bwrap_works
from refig_harness_claude_code.adapter import ClaudeCodeHarness
from refig_harness_claude_code.pin import PIN
from refig_toolkit_agent.httpserver import LocalServer, Response
from refig_toolkit_agent.install import locate
from refig_toolkit_testing.scripted import DEFAULT_SCRIPT, Run
from refig_toolkit_testing.selfcheck import check_harness

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not locate("claude-code", PIN).ok,
                       reason=f"Claude Code {PIN.version} is not installed"),
    pytest.mark.skipif(not bwrap_works(), reason="bubblewrap cannot run here"),
]

PROBE = ("python3 -c \"import socket,sys\ntry:\n socket.create_connection(('127.0.0.1', {port}), "
         "timeout=5).close(); print('connected')\nexcept OSError as e: print(type(e).__name__)\""
         " > probe.txt")


def test_the_agent_reaches_only_the_gateway() -> None:
    with LocalServer(lambda request: Response.json({"ok": True})) as bystander:
        port = int(bystander.url.rsplit(":", 1)[1])
        script = (Run(PROBE.format(port=port)), *DEFAULT_SCRIPT)
        with check_harness(ClaudeCodeHarness(), script=script, timeout=300) as outcome:
            probe = (outcome.dirs.workspace / "probe.txt").read_text().strip()
            assert outcome.result.error is None, outcome.result.error
            assert probe == "ConnectionRefusedError"  # the host's loopback is not reachable
            assert len(outcome.calls) == len(outcome.served) > 0
            assert outcome.mismatches() == []
            assert "network: none" in outcome.dirs.log.read_text()
        assert bystander.requests == []
