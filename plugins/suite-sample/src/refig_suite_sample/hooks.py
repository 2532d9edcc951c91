"""Registers the `sample` suite builder; generation lives in :mod:`.build`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from refig.plugin import SuiteRecord, hookimpl

from refig_suite_sample.command import build_command


def _factory(**options: Any) -> Any:
    from refig_suite_sample.build import build_sample

    return build_sample


@hookimpl
def refig_suites() -> Iterator[SuiteRecord]:
    yield SuiteRecord(
        name="sample",
        description="Generated overview figures with exact node, edge and group annotations.",
        factory=_factory,
        command=build_command,
        families=frozenset({"figure-to-slide"}),
    )
