"""How much two workers gain over one on this machine, for the metrics' kind of work, in the run
that measures the pass: the same total work (SSIM of 1024 px images; pure Python) done by one
worker, by two threads and by two processes. Two idle cores give about 2x with processes; what
threads give says how much the GIL costs the local executor; under load neither reaches 2."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

ROUNDS = 6


def _work(kind: str, rounds: int) -> float:
    """Wall seconds of ``rounds`` units of ``kind``; imports and inputs made before timing."""
    import numpy as np
    from skimage.metrics import structural_similarity

    image = np.random.default_rng(0).random((768, 1024))
    started = time.perf_counter()
    for _ in range(rounds):
        if kind == "ssim":
            structural_similarity(image, image[::-1], data_range=1.0)
        else:
            sum(i * i for i in range(2_000_000))
    return time.perf_counter() - started


def _threads(kind: str) -> float:
    started = time.perf_counter()
    workers = [threading.Thread(target=_work, args=(kind, ROUNDS // 2)) for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return time.perf_counter() - started


def measure() -> dict[str, Any]:
    """Speed-up of two threads and of two processes over one worker, per kind of work."""
    results: dict[str, Any] = {}
    with ProcessPoolExecutor(2) as pool:
        list(pool.map(_work, ["python", "python"], [1, 1]))  # start and import in both
        for kind in ("ssim", "python"):
            one = _work(kind, ROUNDS)
            threads = _threads(kind)
            processes = max(pool.map(_work, [kind, kind], [ROUNDS // 2] * 2))
            results[kind] = {"one_worker_seconds": one,
                             "two_threads_speedup": one / threads,
                             "two_processes_speedup": one / processes}
    return results


if __name__ == "__main__":
    import json

    print(json.dumps(measure(), indent=2))
