"""Registers the ``claude-code`` harness; the adapter is imported only when selected."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from refig.plugin import HarnessRecord, hookimpl

from refig_harness_claude_code.pin import PIN

if TYPE_CHECKING:
    from refig.plugin import Check


def _create(**options: Any) -> Any:
    from refig_harness_claude_code.adapter import ClaudeCodeHarness

    return ClaudeCodeHarness(**options)


def _checks() -> Iterator[Check]:
    from refig_toolkit_agent.install import cli_checks

    return cli_checks("claude-code", PIN)


@hookimpl
def refig_harnesses() -> Iterator[HarnessRecord]:
    yield HarnessRecord(
        name="claude-code",
        aliases=("claude",),
        description=f"Claude Code {PIN.version} (`claude -p`, stream-json) through refig's "
        "recording gateway; options: effort, max_turns, max_retries, upstream, prices.",
        factory=_create,
        families=frozenset(),
        cli=PIN,
        checks=_checks,
    )
