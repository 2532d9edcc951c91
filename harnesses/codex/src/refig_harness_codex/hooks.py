"""Registers the ``codex`` harness; the adapter is imported only when selected."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from refig.plugin import HarnessRecord, hookimpl

from refig_harness_codex.pin import PIN


def _create(**options: Any) -> Any:
    from refig_harness_codex.adapter import CodexHarness

    return CodexHarness(**options)


@hookimpl
def refig_harnesses() -> Iterator[HarnessRecord]:
    yield HarnessRecord(
        name="codex",
        description=f"Codex CLI {PIN.version} (`codex exec --json`) through refig's recording "
        "gateway; options: effort, max_retries, upstream, prices, sandbox.",
        factory=_create,
        families=frozenset(),
        cli=PIN,
    )
