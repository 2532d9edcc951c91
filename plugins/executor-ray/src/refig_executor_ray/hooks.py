"""Registers the ``ray`` executor; ray itself is imported only when it is selected."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from refig import hookimpl
from refig.records import ExecutorRecord


def _create(**options: Any) -> Any:
    from refig_executor_ray.executor import RayExecutor

    return RayExecutor(**options)


@hookimpl
def refig_executors() -> Iterator[ExecutorRecord]:
    yield ExecutorRecord(
        name="ray",
        description="Ray tasks on a cluster (--ray-address or $REFIG_RAY_ADDRESS; "
        "else a local one); results return to the driver, which writes the store.",
        factory=_create,
    )
