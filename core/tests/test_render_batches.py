"""The render stage's batches: every file once, in order, at most MAX_RENDER_BATCH a batch, and
an equal share for each worker (no batch of a few files left to run alone at the end)."""

from __future__ import annotations

import pytest
from refig.engine.stages import MAX_RENDER_BATCH, MIN_FILES_PER_WORKER, Item, render_batches


def items(count: int) -> list[Item]:
    return [Item(sha256=f"{index:064x}", path=f"/slides/{index}.pptx", family="figure-to-slide")
            for index in range(count)]


@pytest.mark.parametrize("count", [1, 7, 8, 16, 17, 33, 64, 65, 70, 100, 500, 1001])
@pytest.mark.parametrize("jobs", [1, 2, 3])
def test_batches_cover_every_file_once_in_order_within_the_cap(count: int, jobs: int) -> None:
    batches = render_batches(items(count), jobs)
    assert [item for batch in batches for item in batch] == items(count)
    assert all(0 < len(batch) <= MAX_RENDER_BATCH for batch in batches)


@pytest.mark.parametrize(("count", "jobs", "sizes"), [
    (100, 2, [25, 25, 25, 25]),  # cut 32 at a time: 32, 32, 32, 4
    (70, 2, [17, 18, 17, 18]),  # 32, 32, 6
    (1000, 2, [31, 31, 31, 32] * 8),  # 31 of 32 and one of 8
    (10, 2, [10]),  # too few for a second office
])
def test_each_worker_gets_an_equal_share(count: int, jobs: int, sizes: list[int]) -> None:
    assert [len(batch) for batch in render_batches(items(count), jobs)] == sizes


@pytest.mark.parametrize("count", [16, 40, 64, 65, 100, 129, 500, 1001])
def test_batches_are_a_multiple_of_the_workers_and_within_one_file(count: int) -> None:
    jobs = 2
    sizes = [len(batch) for batch in render_batches(items(count), jobs)]
    workers = min(jobs, count // MIN_FILES_PER_WORKER)
    assert len(sizes) % workers == 0
    assert max(sizes) - min(sizes) <= 1
    assert len(sizes) == workers * -(-count // (workers * MAX_RENDER_BATCH))
