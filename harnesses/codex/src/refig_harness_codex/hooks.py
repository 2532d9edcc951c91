"""Registers the ``codex`` harness; the adapter is imported only when selected."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from refig.plugin import HarnessRecord, hookimpl

from refig_harness_codex.pin import PIN

if TYPE_CHECKING:
    from refig.plugin import Check


def _create(**options: Any) -> Any:
    from refig_harness_codex.adapter import CodexHarness

    return CodexHarness(**options)


def _checks() -> Iterator[Check]:
    from refig_toolkit_agent.install import cli_checks

    return cli_checks("codex", PIN)


@hookimpl
def refig_harnesses() -> Iterator[HarnessRecord]:
    yield HarnessRecord(
        name="codex",
        description=f"Codex CLI {PIN.version} (`codex exec --json`) through refig's recording "
        "gateway; options: effort, max_retries, upstream, prices, sandbox.",
        factory=_create,
        families=frozenset(),
        cli=PIN,
        checks=_checks,
    )
