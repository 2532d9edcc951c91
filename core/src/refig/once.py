"""Values made once per key and shared by the threads of a process.

Callers asking for one key at the same time wait for a single making; callers of other keys do not
wait for it (a renderer starting in the background does not hold up a task family, an OCR run on
one image does not hold up another image's cached tokens).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class OncePerKey(Generic[K, V]):
    """A thread-safe map whose values are made on first use, once per key.

    With ``max_entries`` the least recently used value is dropped beyond that many (it is made
    again when asked for). A making that raises stores nothing: the next caller tries again.
    """

    def __init__(self, max_entries: int | None = None) -> None:
        self._values: OrderedDict[K, V] = OrderedDict()
        self._making: dict[K, threading.Lock] = {}
        self._guard = threading.Lock()
        self._max = max_entries

    def get(self, key: K, make: Callable[[], V]) -> V:
        """The value of ``key``, made by ``make()`` when this process has none yet."""
        with self._guard:
            if key in self._values:
                self._values.move_to_end(key)
                return self._values[key]
            making = self._making.setdefault(key, threading.Lock())
        with making:
            with self._guard:
                if key in self._values:
                    return self._values[key]
            made = make()
            with self._guard:
                self._values[key] = made
                self._making.pop(key, None)
                while self._max is not None and len(self._values) > self._max:
                    self._values.popitem(last=False)
            return made

    def peek(self, key: K) -> V | None:
        """The value of ``key`` when one is made, else None (nothing is made, nothing waits)."""
        with self._guard:
            return self._values.get(key)

    def clear(self) -> list[V]:
        """Forget every value and return them (oldest first), e.g. for the caller to close."""
        with self._guard:
            values = list(self._values.values())
            self._values.clear()
            return values

    def __len__(self) -> int:
        with self._guard:
            return len(self._values)
