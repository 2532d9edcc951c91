"""The render stage alone against the warm LibreOffice floor, on the same fresh slides, in one run.

    uv run python benchmarks/full_pass/render_floor.py [--slides 64] [--jobs 2]

The floor is :func:`baselines.warm_floor`; the stage is the evaluation's own batches
(``render_batches``) through its ``RenderBatch`` callable, ``--jobs`` at once, as ``refig
evaluate -j`` runs them. Both are reported in wall and CPU seconds per slide.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from baselines import children_cpu, warm_floor
from corpus import build_suite
from refig.engine.stages import Item, RenderBatch, render_batches
from run import REFIG, check_corpus


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slides", type=int, default=64)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="refig-bench-floor-") as tmp:
        suite = Path(tmp) / "suite"
        build_suite(REFIG, suite, min(args.slides, 50), seed=1)
        files = check_corpus(suite, Path(tmp) / "slides", args.slides)
        floor = warm_floor(files, args.jobs)
        batches = render_batches([Item(str(i), str(f)) for i, f in enumerate(files)], args.jobs)
        started, cpu = time.perf_counter(), children_cpu() + time.process_time()
        with ThreadPoolExecutor(args.jobs) as pool:
            list(pool.map(RenderBatch("libreoffice"), batches))
        wall = (time.perf_counter() - started) / len(files)
        cpu = (children_cpu() + time.process_time() - cpu) / len(files)
    print(json.dumps({
        "slides": len(files), "jobs": args.jobs, "load_before": load_before,
        "load_after": os.getloadavg(), "floor": floor,
        "stage": {"seconds_per_slide": wall, "cpu_seconds_per_slide": cpu},
        "wall_ratio": wall / max(1e-9, floor["seconds_per_slide"]),
        "cpu_ratio": cpu / max(1e-9, floor["cpu_seconds_per_slide"]),
    }, indent=2))


if __name__ == "__main__":
    main()
