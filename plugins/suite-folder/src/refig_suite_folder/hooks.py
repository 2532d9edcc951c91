"""Registers the `folder` suite builder; the import lives in :mod:`.build`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from refig.plugin import SuiteRecord, hookimpl

from refig_suite_folder.command import build_command


def _factory(**options: Any) -> Any:
    from refig_suite_folder.build import build_folder

    return build_folder


@hookimpl
def refig_suites() -> Iterator[SuiteRecord]:
    yield SuiteRecord(
        name="folder",
        description="A suite from your own folder of figures, with an optional provenance file.",
        factory=_factory,
        command=build_command,
        families=frozenset({"figure-to-slide"}),
    )
