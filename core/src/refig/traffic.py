"""Traffic control for model calls: an adaptive concurrency limit, Retry-After pauses, backoff.

The limit tells a sporadic 429 from overload by what was happening when the call was sent. Each
call carries its *level*: how many calls were in flight with it. The limiter remembers the last
``memory`` answers; the *known-good* level is the highest level among their successes. A 429 is
overload when its call went above the known-good level (the server refused more concurrency than
it has just handled: a capacity), or when more than ``overload`` of the remembered answers are
429s (the server refuses at any level: its capacity shrank or a rate limit is spent). Any other
429 is sporadic: the limit stays, and the refused call alone waits.

On overload the limit follows AIMD with fast recovery, the way TCP finds a link's capacity: it
halves (once per window: answers to calls sent before the last decrease do not decrease it again),
grows back by one per success up to the known-good level (below the level that was refused), then
probes above it by one per ``probe_windows`` windows (``1 / (limit * probe_windows)`` per success),
so a capacity limit costs one refusal per probe. ``Retry-After`` is honoured per call, as the
OpenAI and Anthropic SDKs do: the refused call is not sent again before the time the server gave.
The limiter keeps no clock: the same answers in the same order give the same limits.
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
    probe_windows: int = 4
    limit: float = 0.0
    in_flight: int = 0
    decreases: int = 0
    sporadic: int = 0
    _recover_to: float = 0.0
    _generation: int = 0
    _recent: deque[tuple[int, bool]] = field(default_factory=deque)
    _cond: threading.Condition = field(default_factory=threading.Condition)

    def __post_init__(self) -> None:
        self.maximum = max(1, self.maximum)
        self.minimum = max(1, min(self.minimum, self.maximum))
        self.limit = self._recover_to = float(self.maximum)
        self._recent = deque(maxlen=max(1, self.memory))

    @property
    def known_good(self) -> int:
        """The highest level among the remembered successes (0 before any)."""
        return max((level for level, refused in self._recent if not refused), default=0)

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
            if rate_limited:
                self._refused(slot)
            elif ok:
                self._recent.append((slot.level, False))
                if self.limit < self.maximum:
                    step = (1.0 if self.limit < self._recover_to
                            else 1.0 / (self.limit * self.probe_windows))
                    self.limit = min(float(self.maximum), self.limit + step)
            self._cond.notify_all()

    def _refused(self, slot: Slot) -> None:
        good = self.known_good
        self._recent.append((slot.level, True))
        refusals = sum(refused for _, refused in self._recent)
        if slot.level <= good and refusals <= self.overload * self._recent.maxlen:
            self.sporadic += 1
        elif slot.window == self._generation:
            self._recover_to = float(max(self.minimum, min(good, slot.level - 1)))
            self.limit = max(float(self.minimum), self.limit / 2)
            self._generation += 1
            self.decreases += 1


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
