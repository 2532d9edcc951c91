"""The bounded submission loop shared by the executors, with handles whose ending the test picks."""

from __future__ import annotations

from refig.inflight import in_flight


class Pool:
    """Handles are submission numbers; ``wait_any`` ends the two most recent ones at once."""

    def __init__(self) -> None:
        self.submitted: list[str] = []
        self.most_in_flight = 0
        self.pending: dict[int, str] = {}

    def submit(self, item: str) -> int:
        self.submitted.append(item)
        self.most_in_flight = max(self.most_in_flight, len(self.pending) + 1)
        return len(self.submitted) - 1

    def wait_any(self, handles):
        return sorted(handles)[-2:]


def test_every_item_once_never_more_than_jobs_in_flight() -> None:
    pool = Pool()
    items = [f"t{i}" for i in range(10)]
    done = [item for item, handle in in_flight(items, 3, pool.submit, pool.wait_any, pool.pending)
            if pool.submitted[handle] == item]
    assert sorted(done) == items and pool.submitted == items
    assert pool.most_in_flight == 3 and not pool.pending


def test_a_consumer_that_stops_leaves_the_rest_unsubmitted_and_pending_known() -> None:
    pool = Pool()
    loop = in_flight([f"t{i}" for i in range(100)], 4, pool.submit, pool.wait_any, pool.pending)
    first, _ = next(loop)
    loop.close()
    assert first == "t2"
    assert len(pool.submitted) == 5  # four at the start, one refilled before the first yield
    assert sorted(pool.pending.values()) == ["t0", "t1", "t3", "t4"]  # what the caller cancels


def test_jobs_below_one_still_runs_one_at_a_time() -> None:
    pool = Pool()
    assert [i for i, _ in in_flight(["a", "b"], 0, pool.submit, pool.wait_any, pool.pending)] \
        == ["a", "b"]
    assert pool.most_in_flight == 1
