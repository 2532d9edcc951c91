"""Speed of refig_toolkit_analysis.stats against plain Python loops, measured in the same run.

1. Percentile bootstrap: 10,000 resamples of the mean over 1,000 tasks x 10 configurations.
2. Cluster-bootstrap Bradley-Terry: 1,000 refits over 4,270 comparisons among 10 configurations
   clustered in 1,000 source figures.

The plain-Python baselines are too slow to run in full, so they run on a subset of resamples and
are extrapolated linearly (each resample costs the same); the output says which. A second
baseline, numpy one resample at a time, shows what the vectorisation itself buys.

    uv run python benchmarks/stats_speed/run.py [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import time
from collections.abc import Callable

import numpy as np
from refig_toolkit_analysis import stats

TASKS, CONFIGS, RESAMPLES = 1_000, 10, 10_000
COMPARISONS, FIGURES, FITS = 4_270, 1_000, 1_000


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


# --- bootstrap ----------------------------------------------------------------------------------


def python_bootstrap(scores: list[list[float]], resamples: int, seed: int) -> list[float]:
    """Plain Python: draw n task indices per resample, average each configuration's scores."""
    rng = random.Random(seed)
    n, k = len(scores), len(scores[0])
    means = []
    for _ in range(resamples):
        sums = [0.0] * k
        for _ in range(n):
            row = scores[rng.randrange(n)]
            for j in range(k):
                sums[j] += row[j]
        means.extend(s / n for s in sums)
    return means


def numpy_loop_bootstrap(scores: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """numpy, one resample at a time."""
    rng = np.random.default_rng(seed)
    n = scores.shape[0]
    return np.array([scores[rng.integers(0, n, n)].mean(axis=0) for _ in range(resamples)])


# --- Bradley-Terry ------------------------------------------------------------------------------


def python_bt(wins: list[list[float]], iters: int = 10_000, tol: float = 1e-10) -> list[float]:
    """Plain Python MM algorithm (Hunter 2004) for Bradley-Terry with fractional (tie) wins."""
    m = len(wins)
    p = [1.0] * m
    for _ in range(iters):
        new = []
        for i in range(m):
            denom = sum((wins[i][j] + wins[j][i]) / (p[i] + p[j]) for j in range(m) if j != i)
            new.append(sum(wins[i]) / denom)
        geo = math.exp(sum(math.log(v) for v in new) / m)
        new = [v / geo for v in new]
        done = max(abs(a - b) for a, b in zip(new, p, strict=True)) < tol
        p = new
        if done:
            break
    return [math.log(v) for v in p]


def python_cluster_bt(
    comps: list[stats.Comparison], items: list[str], fits: int, seed: int
) -> list[list[float]]:
    """Plain Python: resample figures, rebuild the win matrix, refit with MM."""
    rng = random.Random(seed)
    by_figure: dict[object, list[stats.Comparison]] = {}
    for c in comps:
        by_figure.setdefault(c.cluster, []).append(c)
    figures = list(by_figure)
    pos = {name: i for i, name in enumerate(items)}
    found = []
    for _ in range(fits):
        wins = [[0.0] * len(items) for _ in items]
        for _ in figures:
            for c in by_figure[figures[rng.randrange(len(figures))]]:
                wins[pos[c.left]][pos[c.right]] += c.score
                wins[pos[c.right]][pos[c.left]] += 1 - c.score
        found.append(python_bt(wins))
    return found


def numpy_loop_bt(comps: list[stats.Comparison], fits: int) -> None:
    """numpy, one resample at a time (the same Newton solver, a stack of one)."""
    items = tuple(sorted({c.left for c in comps} | {c.right for c in comps}))
    credit, g = stats._credit_matrices(comps, items)
    flat = credit.reshape(g, -1)
    rng = np.random.default_rng(1)
    m = len(items)
    for _ in range(fits):
        counts = np.bincount(rng.integers(0, g, g), minlength=g).astype(float)
        stats._fit_bt((counts @ flat).reshape(1, m, m))


def comparisons(seed: int) -> list[stats.Comparison]:
    rng = np.random.default_rng(seed)
    strength = rng.normal(0, 0.6, CONFIGS)
    names = [f"config-{i}" for i in range(CONFIGS)]
    found = []
    for k in range(COMPARISONS):
        i, j = rng.choice(CONFIGS, 2, replace=False)
        p = 1 / (1 + math.exp(-(strength[i] - strength[j])))
        u = rng.random()
        score = 0.5 if u < 0.1 else float(rng.random() < p)
        found.append(stats.Comparison(names[i], names[j], score, f"fig-{k % FIGURES}"))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument(
        "--python-resamples",
        type=int,
        default=100,
        help="resamples of the plain-Python bootstrap baseline (extrapolated)",
    )
    parser.add_argument(
        "--python-fits",
        type=int,
        default=20,
        help="fits of the plain-Python Bradley-Terry baseline (extrapolated)",
    )
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    scores = rng.normal(60, 15, size=(TASKS, CONFIGS))
    stats.bootstrap_ci(scores[:50], resamples=100)  # warm-up (imports, BLAS threads)
    ours_boot = timed(lambda: stats.bootstrap_ci(scores, resamples=RESAMPLES, seed=1))
    numpy_boot = timed(lambda: numpy_loop_bootstrap(scores, RESAMPLES, 1))
    rows = scores.tolist()
    sub = args.python_resamples
    python_boot = timed(lambda: python_bootstrap(rows, sub, 1)) * RESAMPLES / sub

    comps = comparisons(0)
    ours_bt = timed(lambda: stats.bradley_terry_elo(comps, resamples=FITS, seed=1))
    numpy_bt = timed(lambda: numpy_loop_bt(comps, FITS))
    items = sorted({c.left for c in comps} | {c.right for c in comps})
    fits = args.python_fits
    python_bt_s = timed(lambda: python_cluster_bt(comps, items, fits, 1)) * FITS / fits

    results = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, numpy {np.__version__}",
        "bootstrap": {
            "work": f"{RESAMPLES:,} resamples x {TASKS:,} tasks x {CONFIGS} configurations",
            "refig_seconds": ours_boot,
            "numpy_loop_seconds": numpy_boot,
            "python_loop_seconds": python_boot,
            "python_loop_measured_resamples": sub,
            "speedup_vs_python": python_boot / ours_boot,
            "speedup_vs_numpy_loop": numpy_boot / ours_boot,
        },
        "bradley_terry": {
            "work": f"{FITS:,} cluster-bootstrap fits, {COMPARISONS:,} comparisons, "
            f"{CONFIGS} configurations, {FIGURES:,} figures",
            "refig_seconds": ours_bt,
            "numpy_loop_seconds": numpy_bt,
            "python_loop_seconds": python_bt_s,
            "python_loop_measured_fits": fits,
            "speedup_vs_python": python_bt_s / ours_bt,
            "speedup_vs_numpy_loop": numpy_bt / ours_bt,
        },
    }
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(results["machine"])
    for key, label, unit in (
        ("bootstrap", "bootstrap", "resamples"),
        ("bradley_terry", "Bradley-Terry", "fits"),
    ):
        r = results[key]
        measured = r.get("python_loop_measured_resamples", r.get("python_loop_measured_fits"))
        print(f"{label}: {r['work']}")
        print(f"  refig (vectorised)      {r['refig_seconds']:8.2f} s")
        print(
            f"  numpy, one at a time    {r['numpy_loop_seconds']:8.2f} s  "
            f"({r['speedup_vs_numpy_loop']:.0f}x slower)"
        )
        print(
            f"  plain Python loop       {r['python_loop_seconds']:8.2f} s  "
            f"({r['speedup_vs_python']:.0f}x slower; measured on {measured} {unit}, "
            f"extrapolated)"
        )


if __name__ == "__main__":
    main()
