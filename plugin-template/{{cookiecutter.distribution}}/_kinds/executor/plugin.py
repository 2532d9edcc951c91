"""Runs work items one after another, in order: predictable, and easy to debug."""

from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

from refig.plugin import Executor

T = TypeVar("T")
R = TypeVar("R")


class SerialExecutor(Executor):
    """An executor that ignores ``jobs`` and runs each item in turn in this process."""

    in_process = True

    def map(
        self, fn: Callable[[T], R], items: Sequence[T], *, jobs: int
    ) -> Iterator[tuple[T, R | BaseException]]:
        for item in items:
            try:
                result: R | BaseException = fn(item)
            except Exception as exc:  # returned to the caller, as the protocol asks
                result = exc
            yield item, result

