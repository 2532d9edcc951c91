"""Registers the ``qwen-code`` harness; the adapter is imported only when selected."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from refig.plugin import HarnessRecord, hookimpl

from refig_harness_qwen_code.pin import PIN

if TYPE_CHECKING:
    from refig.plugin import Check


def _create(**options: Any) -> Any:
    from refig_harness_qwen_code.adapter import QwenCodeHarness

    return QwenCodeHarness(**options)


def _checks() -> Iterator[Check]:
    from refig_toolkit_agent.install import cli_checks

    return cli_checks("qwen-code", PIN)


@hookimpl
def refig_harnesses() -> Iterator[HarnessRecord]:
    yield HarnessRecord(
        name="qwen-code",
        aliases=("qwen",),
        description=f"Qwen Code {PIN.version} (OpenAI Chat Completions) through refig's "
        "recording gateway; options: effort, max_turns, max_retries, upstream, prices.",
        factory=_create,
        families=frozenset(),
        cli=PIN,
        checks=_checks,
    )
