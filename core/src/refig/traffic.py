"""Traffic control for model calls: an adaptive concurrency limit, Retry-After pauses, backoff.

The limit follows AIMD with fast recovery, the way TCP finds a link's capacity: a 429 halves it
(once per window: answers to calls sent before the last decrease do not decrease it again) and
remembers where it hit; successes grow it by one per call back to just below that point, then by
one per window (``1/limit`` per call) to probe for more. ``Retry-After`` is honoured per call, as
the OpenAI and Anthropic SDKs do: the refused call is not sent again before the time the server
gave, while the lowered limit slows everything else down.
"""

from __future__ import annotations

import math
import random
import threading
from dataclasses import dataclass, field


@dataclass
class AdaptiveLimiter:
    """At most ``limit`` calls in flight, adapted to the provider's 429s."""

    maximum: int
    minimum: int = 1
    limit: float = 0.0
    in_flight: int = 0
    decreases: int = 0
    _recover_to: float = 0.0
    _generation: int = 0
    _cond: threading.Condition = field(default_factory=threading.Condition)

    def __post_init__(self) -> None:
        self.maximum = max(1, self.maximum)
        self.minimum = max(1, min(self.minimum, self.maximum))
        self.limit = self._recover_to = float(self.maximum)

    def acquire(self) -> int:
        """Wait for a free slot; return the window the call is in."""
        with self._cond:
            while self.in_flight >= math.floor(self.limit):
                self._cond.wait()
            self.in_flight += 1
            return self._generation

    def release(self, window: int, *, rate_limited: bool = False, ok: bool = False) -> None:
        """End a call: a 429 slows down, a success speeds up."""
        with self._cond:
            self.in_flight -= 1
            if rate_limited:
                if window == self._generation:
                    self._recover_to = max(float(self.minimum), self.limit - 1)
                    self.limit = max(float(self.minimum), self.limit / 2)
                    self._generation += 1
                    self.decreases += 1
            elif ok and self.limit < self.maximum:
                step = 1.0 if self.limit < self._recover_to else 1.0 / self.limit
                self.limit = min(float(self.maximum), self.limit + step)
            self._cond.notify_all()


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
