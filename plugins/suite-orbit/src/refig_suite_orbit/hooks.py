"""Registers the `orbit` suite builder; the selection lives in :mod:`.build`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from refig.plugin import SuiteRecord, hookimpl

from refig_suite_orbit.command import build_command


def _checks() -> Iterator[Any]:
    from refig.plugin import apt_fix, tool

    yield tool("Ghostscript", ("gs", "--version"), apt_fix("ghostscript"),
               purpose="ORBIT skips papers whose overview figure is EPS")


def _factory(**options: Any) -> Any:
    from refig_suite_orbit.build import build_orbit

    return build_orbit


@hookimpl
def refig_suites() -> Iterator[SuiteRecord]:
    yield SuiteRecord(
        name="orbit",
        description="ORBIT: overview figures retrieved from arXiv source packages by caption "
                    "evidence, with full provenance.",
        factory=_factory,
        command=build_command,
        families=frozenset({"figure-to-slide"}),
        checks=_checks,
    )
