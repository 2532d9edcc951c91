"""The render stage alone against the warm LibreOffice floor, on the same fresh slides, in one run.

    uv run python benchmarks/full_pass/render_floor.py [--slides 64] [--jobs 2]

The floor is :func:`baselines.warm_floor`; the stage is the evaluation's own batches
(``render_batches``) through its ``RenderBatch`` callable, ``--jobs`` at once, as ``refig
evaluate -j`` runs them: once from cold (the renderer and its warm offices starting, as the first
batches of a pass) and once more on the same renderer (as every later batch of a pass). All are
reported in wall and CPU seconds per slide; CPU includes the live warm offices.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from baselines import warm_floor
from refig.engine.plugins import close_plugins
from refig.engine.stages import Item, RenderBatch, render_batches
from refig.engine.timing import cpu_seconds
from run import fresh_slides


def stage(files: list[Path], jobs: int) -> dict[str, float]:
    """Wall and CPU seconds per slide of the render stage over ``files``, ``jobs`` at once."""
    batches = render_batches([Item(str(i), str(f)) for i, f in enumerate(files)], jobs)
    started, cpu = time.perf_counter(), cpu_seconds()
    with ThreadPoolExecutor(jobs) as pool:
        list(pool.map(RenderBatch("libreoffice"), batches))
    return {"seconds_per_slide": (time.perf_counter() - started) / len(files),
            "cpu_seconds_per_slide": (cpu_seconds() - cpu) / len(files)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slides", type=int, default=64)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="refig-bench-floor-") as tmp:
        files = fresh_slides(Path(tmp), args.slides, seed=1)
        floor = warm_floor(files, args.jobs)
        cold = stage(files, args.jobs)
        warm = stage(files, args.jobs)
        close_plugins()
    ratios = {f"{name}_{unit}_ratio": result[key] / max(1e-9, floor[key])
              for name, result in (("cold", cold), ("warm", warm))
              for unit, key in (("wall", "seconds_per_slide"), ("cpu", "cpu_seconds_per_slide"))}
    print(json.dumps({
        "slides": len(files), "jobs": args.jobs, "load_before": load_before,
        "load_after": os.getloadavg(), "floor": floor, "stage_cold": cold, "stage_warm": warm,
        **ratios,
    }, indent=2))


if __name__ == "__main__":
    main()
