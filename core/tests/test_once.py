"""OncePerKey: one making per key however many threads ask, other keys never wait for it."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from refig.engine import plugins
from refig.once import OncePerKey
from refig.records import PluginKind

#: A give-up bound for the threads below, never reached when the test passes.
WAIT = 60.0


def test_concurrent_callers_of_one_key_share_a_single_making() -> None:
    cache: OncePerKey[str, object] = OncePerKey()
    release = threading.Event()
    made: list[object] = []

    def make() -> object:
        assert release.wait(WAIT)
        made.append(object())
        return made[-1]

    with ThreadPoolExecutor(8) as pool:
        futures = [pool.submit(cache.get, "a", make) for _ in range(8)]
        release.set()
        results = [f.result(WAIT) for f in futures]
    assert len(made) == 1
    assert all(r is made[0] for r in results)


def test_another_key_is_made_while_one_key_is_still_being_made() -> None:
    cache: OncePerKey[str, str] = OncePerKey()
    slow_started, release = threading.Event(), threading.Event()

    def slow() -> str:
        slow_started.set()
        assert release.wait(WAIT)
        return "slow"

    with ThreadPoolExecutor(2) as pool:
        pending = pool.submit(cache.get, "slow", slow)
        assert slow_started.wait(WAIT)
        # made on this thread while "slow" holds its own making: no wait on it
        assert cache.get("fast", lambda: "fast") == "fast"
        assert not pending.done()
        release.set()
        assert pending.result(WAIT) == "slow"


def test_peek_gives_a_made_value_and_makes_nothing() -> None:
    table: OncePerKey[str, int] = OncePerKey(max_entries=1)
    assert table.peek("a") is None
    table.get("a", lambda: 1)
    assert table.peek("a") == 1
    table.get("b", lambda: 2)  # "a" is dropped beyond one entry
    assert (table.peek("a"), table.peek("b"), len(table)) == (None, 2, 1)


def test_a_failed_making_stores_nothing_and_the_next_caller_tries_again() -> None:
    cache: OncePerKey[str, int] = OncePerKey()

    def fail() -> int:
        raise RuntimeError("no")

    with pytest.raises(RuntimeError):
        cache.get("k", fail)
    assert len(cache) == 0
    assert cache.get("k", lambda: 7) == 7


def test_the_least_recently_used_value_is_dropped_beyond_the_bound() -> None:
    cache: OncePerKey[str, str] = OncePerKey(max_entries=2)
    cache.get("a", lambda: "a")
    cache.get("b", lambda: "b")
    cache.get("a", lambda: "unused")  # a is now the most recent
    cache.get("c", lambda: "c")
    assert cache.get("a", lambda: "again") == "a"
    assert cache.get("b", lambda: "b made again") == "b made again"
    assert cache.clear() == ["a", "b made again"]
    assert len(cache) == 0


def test_the_process_plugins_are_made_once_and_closed_by_close_plugins() -> None:
    first = plugins.plugin(PluginKind.FAMILY, "figure-to-slide")
    assert plugins.plugin(PluginKind.FAMILY, "figure-to-slide") is first
    plugins.close_plugins()
    assert plugins.plugin(PluginKind.FAMILY, "figure-to-slide") is not first
