"""Runs refig's work as Ray tasks, keeping at most ``jobs`` in flight.

Workers only compute: each task's return value travels back to the driver, which alone writes
the run store (SQLite must not be shared across machines). A task whose worker dies is reported
as that item's exception, so the driver records a typed, retryable failure instead of retrying
silently behind its back (``max_retries=0``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

import ray
from refig.plugin import Executor, RefigError, in_flight

T = TypeVar("T")
R = TypeVar("R")


def _apply(fn: Callable[[T], R], item: T) -> R:
    """One work item, run on a Ray worker."""
    return fn(item)


class RayExecutor(Executor):
    """Connects to (or starts) a Ray cluster and maps functions over items as Ray tasks.

    ``address`` is a cluster address (``ray://host:10001``, ``host:6379`` or ``auto``); without
    one, ``$REFIG_RAY_ADDRESS`` is used, else a local cluster is started for this process. When
    this process already holds a Ray connection (``ray.init`` was called), it is reused.
    ``num_cpus`` is what each task reserves (``$REFIG_RAY_NUM_CPUS``, default 1).
    """

    def __init__(self, address: str | None = None, num_cpus: float | str | None = None):
        self.address = address or os.environ.get("REFIG_RAY_ADDRESS") or None
        self.num_cpus = float(num_cpus or os.environ.get("REFIG_RAY_NUM_CPUS") or 1)
        self._owned = False
        if not ray.is_initialized():
            try:
                ray.init(address=self.address, include_dashboard=False, log_to_driver=False,
                         configure_logging=False)
            except Exception as exc:  # Ray raises several types for an unreachable cluster
                where = f"the Ray cluster at {self.address}" if self.address else "a local Ray"
                raise RefigError(
                    f"cannot start or reach {where}: {type(exc).__name__}: {exc}",
                    fix="check --ray-address (or $REFIG_RAY_ADDRESS) and `ray status` there, "
                        "or run without --executor ray",
                ) from exc
            self._owned = True

    def map(
        self, fn: Callable[[T], R], items: Sequence[T], *, jobs: int
    ) -> Iterator[tuple[T, R | BaseException]]:
        name = getattr(fn, "__name__", type(fn).__name__)  # what `ray list tasks` and ps show
        remote = ray.remote(num_cpus=self.num_cpus, max_retries=0)(_apply).options(name=name)
        # fn may be a callable object (a stage's RenderBatch), which ray.remote does not take:
        # it travels once, to the object store, and each task applies it to its item.
        function = ray.put(fn)
        pending: dict[Any, T] = {}
        try:
            for item, ref in in_flight(
                items, jobs, lambda item: remote.remote(function, item),
                lambda refs: ray.wait(list(refs), num_returns=1)[0], pending,
            ):
                try:
                    result: R | BaseException = ray.get(ref)
                except ray.exceptions.RayTaskError as exc:
                    result = exc.cause if isinstance(exc.cause, BaseException) else exc
                except ray.exceptions.RayError as exc:
                    result = exc
                yield item, result
        finally:
            for ref in pending:
                ray.cancel(ref, force=True)

    def environment(self) -> Mapping[str, str]:
        """Ray's version and the cluster's live hosts: stages run there, and refig records
        only the driver's environment (``docs/reproducibility.md``)."""
        hosts = sorted({node.get("NodeManagerHostname", "?") for node in ray.nodes()
                        if node.get("Alive")})
        return {"ray": ray.__version__, "hosts": ",".join(hosts)}

    def close(self) -> None:
        """Disconnect, and stop the local cluster if this executor started it."""
        if self._owned and ray.is_initialized():
            ray.shutdown()
        self._owned = False
