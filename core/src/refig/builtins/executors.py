"""The built-in ``local`` executor: a bounded thread pool in this process."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import TypeVar

from refig.hookspecs import hookimpl
from refig.inflight import in_flight
from refig.protocols import Executor
from refig.records import ExecutorRecord

T = TypeVar("T")
R = TypeVar("R")


class LocalExecutor(Executor):
    """Runs items on up to ``jobs`` threads, submitting lazily so a stopped consumer stops work.

    Threads suit refig's work: attempts wait on subprocesses, renders on LibreOffice, judges on
    HTTP, and the numeric metrics release the GIL inside numpy and onnxruntime.
    """

    #: Stage callables run in this process, on the plugins it made (the engine warms them).
    in_process = True

    def map(
        self, fn: Callable[[T], R], items: Sequence[T], *, jobs: int
    ) -> Iterator[tuple[T, R | BaseException]]:
        pool = ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="refig")
        pending: dict[Future[R], T] = {}
        finished = False
        try:
            for item, future in in_flight(
                items, jobs, lambda item: pool.submit(fn, item),
                lambda futures: wait(futures, return_when=FIRST_COMPLETED).done, pending,
            ):
                error = future.exception()
                yield item, (error if error is not None else future.result())
            finished = True
        finally:
            # Interrupted (Ctrl-C while waiting, or the consumer stopped): do not wait here for
            # running items; the caller ends them (``refig run`` kills their processes).
            pool.shutdown(wait=finished, cancel_futures=True)

    def close(self) -> None:
        """Nothing to release: each ``map`` owns its pool."""


@hookimpl
def refig_executors() -> Iterator[ExecutorRecord]:
    yield ExecutorRecord(
        name="local",
        description="Concurrent work on this machine (threads; -j sets how many).",
        factory=lambda **_: LocalExecutor(),
    )
