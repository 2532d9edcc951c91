"""Traffic control for model calls: an adaptive concurrency limit, Retry-After pauses, backoff.

A 429 is read against what the server did recently at the same concurrency. Each call carries its
*level*: how many calls were in flight with it when it was sent. The limiter remembers the last
``memory`` answers. A 429 means *overload* when no remembered call at its level or above succeeded
(the server refuses more concurrency than it has handled: a capacity), or when calls at its level
or above, sent since the last decrease, were refused more than ``overload`` of the time plus
``margin`` calls (the server refuses at every level: its capacity shrank, a rate limit is spent;
the margin keeps a few unlucky refusals among few answers from counting). Any other 429 is
*sporadic*: the limit stays where it is, and only the refused call waits.

On overload the limit follows AIMD with fast recovery, the way TCP finds a link's capacity: it
halves (once per window: answers to calls sent before the last decrease do not decrease it again),
grows back by one per success to the last known-good level (the highest level that recently
succeeded, below the refused one), then by one per window (``1/limit`` per success). The refused
level is a learned *ceiling*: the step onto it is ``probe_windows`` times slower, so a server with
a fixed capacity costs about one refusal per ``probe_windows`` windows. ``Retry-After`` is
honoured per call, as the OpenAI and Anthropic SDKs do: the refused call is not sent again before
the time the server gave. The limiter keeps no clock: the same answers in the same order give the
same limits.
"""

from __future__ import annotations

import math
import random
import threading
from collections import deque
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Slot:
    """A call in flight: the window it was sent in, and its level (calls in flight with it)."""

    window: int
    level: int


@dataclass
class AdaptiveLimiter:
    """At most ``limit`` calls in flight, adapted to the provider's 429s."""

    maximum: int
    minimum: int = 1
    memory: int = 50
    overload: float = 0.1
    margin: int = 2
    probe_windows: int = 8
    limit: float = 0.0
    in_flight: int = 0
    decreases: int = 0
    sporadic: int = 0
    _recover_to: float = 0.0
    _ceiling: int = 0
    _generation: int = 0
    _recent: deque[tuple[Slot, bool]] = field(default_factory=deque)
    _cond: threading.Condition = field(default_factory=threading.Condition)

    def __post_init__(self) -> None:
        self.maximum = max(1, self.maximum)
        self.minimum = max(1, min(self.minimum, self.maximum))
        self.limit = self._recover_to = float(self.maximum)
        self._recent = deque(maxlen=max(1, self.memory))

    def acquire(self) -> Slot:
        """Wait for a free slot; return it, to give back to :meth:`release`."""
        with self._cond:
            while self.in_flight >= math.floor(self.limit):
                self._cond.wait()
            self.in_flight += 1
            return Slot(self._generation, self.in_flight)

    def release(self, slot: Slot, *, rate_limited: bool = False, ok: bool = False) -> None:
        """End a call: an overload 429 slows down, a success speeds up, anything else is neutral."""
        with self._cond:
            self.in_flight -= 1
            if ok or rate_limited:
                self._recent.append((slot, rate_limited))
            if rate_limited and slot.window == self._generation:
                self._refused(slot.level)
            elif ok:
                self._grow()
            self._cond.notify_all()

    def _refused(self, level: int) -> None:
        """A 429 to a call sent since the last decrease: sporadic, or overload (see the module)."""
        good = succeeded = refused = 0
        for other, was_refused in self._recent:
            if not was_refused:
                good = max(good, other.level)
            if other.level >= level:
                succeeded += not was_refused
                refused += was_refused and other.window == self._generation
        if succeeded and refused <= self.overload * (succeeded + refused) + self.margin:
            self.sporadic += 1
            return
        # Back fast to the highest level that just worked, below the refused one; with none, to
        # just below the old limit.
        self._recover_to = max(float(self.minimum), min(good, level - 1) if good
                               else self.limit - 1)
        self.limit = max(float(self.minimum), self.limit / 2)
        self._ceiling = level
        self._generation += 1
        self.decreases += 1

    def _grow(self) -> None:
        """A success: fast to the known-good level, then one per window, slowly onto the ceiling."""
        if self.limit < self._recover_to:
            self.limit = min(self._recover_to, self.limit + 1)
            return
        step = 1 / self.limit
        if math.floor(self.limit) + 1 == self._ceiling:
            step /= self.probe_windows
        self.limit = min(float(self.maximum), self.limit + step)


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry a call that failed for a passing reason."""

    attempts: int = 6
    backoff: float = 1.0
    max_backoff: float = 60.0
    max_retry_after: float = 300.0

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait before call ``attempt + 1``: the server's word, else backoff + jitter.

        Exponential backoff with "equal jitter": half the step is fixed, half random, so retries
        of calls that failed together spread out but never come back sooner than half the step.
        """
        if retry_after is not None and retry_after >= 0:
            return min(retry_after, self.max_retry_after)
        step = min(self.max_backoff, self.backoff * 2**attempt)
        return step / 2 + random.uniform(0, step / 2)
