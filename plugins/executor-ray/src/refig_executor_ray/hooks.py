"""Registers the ``ray`` executor; ray itself is imported only when it is selected."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from refig.plugin import ExecutorRecord, hookimpl


def _checks() -> Iterator[Any]:
    from importlib import metadata

    from refig.plugin import Check, Status

    address = os.environ.get("REFIG_RAY_ADDRESS")
    where = f"cluster at {address}" if address else "a local cluster unless --ray-address is given"
    yield Check("Ray", Status.OK, f"ray {metadata.version('ray')}; {where}")


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
        checks=_checks,
    )
