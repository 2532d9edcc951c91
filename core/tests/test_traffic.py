"""The adaptive limit shrugs off sporadic 429s, finds a capacity, backs off overload; backoff.

The limiter keeps no clock, so most tests drive it on a tick clock of their own (``Server``): no
sleeps, no timing, the same limits on every run.
"""

from __future__ import annotations

import heapq
import itertools
import random
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from refig.traffic import AdaptiveLimiter, RetryPolicy, Slot


@dataclass
class Server:
    """A provider on a tick clock: answers after ``latency`` ticks (plus 0-3 of jitter); a 429 in
    one tick. ``refuse(in_flight, now)`` decides each call, ``in_flight`` counting it."""

    refuse: Callable[[int, int], bool]
    latency: int = 20
    seed: int = 0
    in_flight: int = 0
    answered: int = 0
    refused: int = 0
    now: int = 0
    _due: list[tuple[int, int, Slot, bool]] = field(default_factory=list)
    _sequence: Iterator[int] = field(default_factory=itertools.count)

    def run(self, limiter: AdaptiveLimiter, ticks: int) -> list[tuple[float, int]]:
        """Keep the limiter full (a backlog that never ends); each tick's (limit, in flight)."""
        rng = random.Random(self.seed + self.now)
        trace = []
        for _ in range(ticks):
            self.now += 1
            while self._due and self._due[0][0] <= self.now:
                _, _, slot, refused = heapq.heappop(self._due)
                self.in_flight -= 1
                self.answered += 1
                self.refused += refused
                limiter.release(slot, rate_limited=refused, ok=not refused)
            while limiter.in_flight < int(limiter.limit):
                slot = limiter.acquire()  # a slot is free: returns at once
                self.in_flight += 1
                refused = self.refuse(self.in_flight, self.now)
                done = self.now + (1 if refused else self.latency + rng.randint(0, 3))
                heapq.heappush(self._due, (done, next(self._sequence), slot, refused))
            trace.append((limiter.limit, self.in_flight))
        return trace


def unlucky(share: float, seed: int = 1) -> Callable[[int, int], bool]:
    """Refuse ``share`` of calls at random, whatever the load."""
    rng = random.Random(seed)
    return lambda in_flight, now: rng.random() < share


def test_sporadic_429s_do_not_lower_the_limit():
    limiter = AdaptiveLimiter(maximum=16)
    server = Server(unlucky(0.02))
    server.run(limiter, 60)  # three latencies: the first window knows no level that works yet
    decreases = limiter.decreases
    trace = server.run(limiter, 3000)  # about 2,200 answers, 2% of them 429s
    assert server.answered > 2000 and limiter.sporadic > 30
    assert limiter.decreases == decreases
    assert all(limit == 16 for limit, _ in trace)


def test_a_rate_limit_that_refuses_at_every_level_is_found():
    limiter = AdaptiveLimiter(maximum=32)
    bucket = {"tokens": 0.0, "at": 0}

    def rate_limit(in_flight: int, now: int) -> bool:
        """Half a call per tick, bursts of ten: 10 to 11 calls in flight at 20-23 ticks a call."""
        bucket["tokens"] = min(10.0, bucket["tokens"] + (now - bucket["at"]) / 2)
        bucket["at"] = now
        if bucket["tokens"] < 1:
            return True
        bucket["tokens"] -= 1
        return False

    server = Server(rate_limit)
    server.run(limiter, 1000)
    assert limiter.decreases >= 2
    answered, refused = server.answered, server.refused
    trace = server.run(limiter, 5000)
    assert 9 < sum(in_flight for _, in_flight in trace) / len(trace) < 13
    assert max(limit for limit, _ in trace) < 16
    assert (server.refused - refused) / (server.answered - answered) < 0.1


def test_a_capacity_drives_the_limit_down_to_it_and_keeps_it_there():
    limiter = AdaptiveLimiter(maximum=32)
    server = Server(lambda in_flight, now: in_flight > 10)
    trace = server.run(limiter, 6000)  # about 3,000 answers
    settled = trace[200:]  # after ten latencies
    over = sum(in_flight > 10 for _, in_flight in settled)
    assert over / len(settled) < 0.01  # only a probe's refused call, for its tick
    assert max(limit for limit, _ in settled) < 12
    assert sum(in_flight for _, in_flight in settled) / len(settled) > 9  # it does not collapse
    assert limiter.sporadic == 0  # every refusal said "too many"


def test_a_capacity_that_shrinks_is_followed_down():
    limiter = AdaptiveLimiter(maximum=16)
    capacity = [16]
    server = Server(lambda in_flight, now: in_flight > capacity[0])
    server.run(limiter, 400)
    assert limiter.limit == 16
    capacity[0] = 6  # calls at levels that just worked are refused now
    trace = server.run(limiter, 1000)
    settled = trace[200:]
    assert max(limit for limit, _ in settled) < 8
    assert sum(in_flight > 6 for _, in_flight in settled) / len(settled) < 0.02


def test_decreases_are_once_per_window_and_recovery_is_fast_to_the_known_good_level():
    limiter = AdaptiveLimiter(maximum=20)
    for slot in [limiter.acquire() for _ in range(16)]:
        limiter.release(slot, ok=True)  # levels 1..16 worked
    sent = [limiter.acquire() for _ in range(17)]
    limiter.release(sent.pop(), rate_limited=True)  # level 17: more than the server handled
    assert limiter.limit == 10 and limiter.decreases == 1
    for slot in sent:  # answers to calls sent before the decrease do not decrease it again
        limiter.release(slot, rate_limited=True)
    assert limiter.limit == 10 and limiter.decreases == 1
    for _ in range(6):
        limiter.release(limiter.acquire(), ok=True)
    assert limiter.limit == 16  # one per success, back to the level that worked
    limiter.release(limiter.acquire(), ok=True)
    assert 16 < limiter.limit < 16 + 1 / 16  # and no faster above it


def test_the_step_onto_a_refused_level_is_probed_slowly():
    limiter = AdaptiveLimiter(maximum=32, probe_windows=8)
    good = [limiter.acquire() for _ in range(16)]
    refused = limiter.acquire()
    for slot in good:
        limiter.release(slot, ok=True)
    limiter.release(refused, rate_limited=True)
    assert (limiter.limit, limiter.decreases) == (16, 1)
    successes = 0
    while limiter.limit < 17:
        limiter.release(limiter.acquire(), ok=True)
        successes += 1
    assert successes > 7 * 16  # about eight windows of 16 before level 17 is tried again
    successes = 0
    while limiter.limit < 18:  # past the ceiling: one per window again
        limiter.release(limiter.acquire(), ok=True)
        successes += 1
    assert successes <= 18


def test_the_limit_bounds_calls_in_flight():
    limiter = AdaptiveLimiter(maximum=2)
    first, second = limiter.acquire(), limiter.acquire()
    got = threading.Event()

    def third():
        limiter.release(limiter.acquire(), ok=True)
        got.set()

    thread = threading.Thread(target=third)
    thread.start()
    assert not got.wait(0.2)
    limiter.release(first, ok=True)
    assert got.wait(30)  # returns as soon as the slot frees; the bound only guards a hang
    limiter.release(second, ok=True)
    thread.join()


def test_backoff_grows_with_jitter_and_respects_the_server():
    policy = RetryPolicy(backoff=1.0, max_backoff=8.0)
    for attempt, step in [(0, 1), (1, 2), (2, 4), (3, 8), (6, 8)]:
        delays = [policy.delay(attempt) for _ in range(50)]
        assert all(step / 2 <= d <= step for d in delays)
        assert len(set(delays)) > 1
    assert policy.delay(0, retry_after=3.5) == 3.5
    assert policy.delay(0, retry_after=1e6) == policy.max_retry_after
