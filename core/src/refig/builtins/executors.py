"""The built-in ``local`` executor: a bounded thread pool in this process."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import TypeVar

from refig.hookspecs import hookimpl
from refig.records import ExecutorRecord

T = TypeVar("T")
R = TypeVar("R")


class LocalExecutor:
    """Runs items on up to ``jobs`` threads, submitting lazily so a stopped consumer stops work.

    Threads suit refig's work: attempts wait on subprocesses, renders on LibreOffice, judges on
    HTTP, and the numeric metrics release the GIL inside numpy and onnxruntime.
    """

    def map(
        self, fn: Callable[[T], R], items: Sequence[T], *, jobs: int
    ) -> Iterator[tuple[T, R | BaseException]]:
        pool = ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="refig")
        pending: dict[Future[R], T] = {}
        queue = iter(items)
        finished = False
        try:
            for item in queue:
                pending[pool.submit(fn, item)] = item
                if len(pending) >= max(1, jobs):
                    break
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    item = pending.pop(future)
                    next_item = next(queue, _END)
                    if next_item is not _END:
                        pending[pool.submit(fn, next_item)] = next_item
                    error = future.exception()
                    yield item, (error if error is not None else future.result())
            finished = True
        finally:
            # Interrupted (Ctrl-C while waiting, or the consumer stopped): do not wait here for
            # running items; the caller ends them (``refig run`` kills their processes).
            pool.shutdown(wait=finished, cancel_futures=True)

    def close(self) -> None:
        """Nothing to release: each ``map`` owns its pool."""


_END = object()


@hookimpl
def refig_executors() -> Iterator[ExecutorRecord]:
    yield ExecutorRecord(
        name="local",
        description="Concurrent work on this machine (threads; -j sets how many).",
        factory=lambda **_: LocalExecutor(),
    )
