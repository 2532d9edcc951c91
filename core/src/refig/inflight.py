"""Lazy, bounded submission: the loop every executor runs over its own kind of task handle."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection, Hashable, Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")
H = TypeVar("H", bound=Hashable)


def in_flight(
    items: Iterable[T],
    jobs: int,
    submit: Callable[[T], H],
    wait_any: Callable[[Collection[H]], Iterable[H]],
    pending: dict[H, T],
) -> Iterator[tuple[T, H]]:
    """Submit ``items`` keeping at most ``jobs`` in flight; yield ``(item, handle)`` as each ends.

    ``wait_any`` blocks until at least one of the handles it is given has finished and returns
    those. The next item is submitted before a finished one is yielded, so the pool stays full
    while the consumer works. ``pending`` is the caller's, holding what is still in flight, so a
    consumer that stops early can cancel exactly that.
    """
    queue = iter(items)
    for item in itertools.islice(queue, max(1, jobs)):
        pending[submit(item)] = item
    while pending:
        for handle in wait_any(list(pending)):
            item = pending.pop(handle)
            for following in itertools.islice(queue, 1):
                pending[submit(following)] = following
            yield item, handle
