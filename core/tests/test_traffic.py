"""The adaptive limit halves on a 429 once per window, recovers, and honours Retry-After."""

from __future__ import annotations

import threading

from refig.traffic import AdaptiveLimiter, RetryPolicy


def test_a_429_halves_the_limit_once_per_window():
    limiter = AdaptiveLimiter(maximum=16)
    windows = [limiter.acquire() for _ in range(16)]
    # Every call of the first window comes back 429: one decrease, not sixteen.
    for window in windows:
        limiter.release(window, rate_limited=True)
    assert limiter.limit == 8 and limiter.decreases == 1
    # A 429 to a call sent after the decrease halves again.
    limiter.release(limiter.acquire(), rate_limited=True)
    assert limiter.limit == 4 and limiter.decreases == 2


def test_successes_recover_fast_then_probe_slowly():
    limiter = AdaptiveLimiter(maximum=32)
    for _ in range(2):  # 32 -> 16 -> 8; the last 429 came at 16
        limiter.release(limiter.acquire(), rate_limited=True)
    assert limiter.limit == 8
    for _ in range(7):
        limiter.release(limiter.acquire(), ok=True)
    assert limiter.limit == 15  # one per success up to just below where the last 429 came
    for _ in range(15):
        limiter.release(limiter.acquire(), ok=True)
    assert 15.9 < limiter.limit < 16.1  # then one per window of successes


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
