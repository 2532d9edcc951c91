"""``refig check`` over fresh distinct slides against the naive way, end to end, in one run, with
where check's time goes.

    uv run python benchmarks/full_pass/check_ratio.py [--slides 30] [--jobs 2]

Order: check, the naive way (one cold ``soffice --convert-to pdf`` per file, sequentially, with
the same PDF to PNG, gate and tree), check again; the ratio is the naive seconds over the mean of
the two checks, so a load that drifts during the run weighs on both sides. The breakdown times
``refig check`` over one file (the fixed costs: the CLI starting, plugins, LibreOffice's first
start), over every file with only the cheapest metric (``topology``): the rest is metrics, and
over every file with ``-j 1`` (one office instead of two), and what LibreOffice's sandbox costs:
``refig check`` over every file with the sandbox and without it (``REFIG_RENDER_SANDBOX=none``),
alternated ``--sandbox-pairs`` times. Every ``refig`` runs in a user's environment, with its
bytecode cached (:func:`baselines.user_env`).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

from baselines import import_time, naive_render, user_env
from run import REFIG, fresh_slides, timed


def check(files: list[Path], jobs: int, *extra: str,
          env: dict[str, str] | None = None) -> dict[str, float]:
    """Wall and CPU seconds of one ``refig check -q --json`` over ``files``."""
    wall, cpu, _ = timed([REFIG, "check", "-q", "--json", "-j", str(jobs), *extra,
                          *map(str, files)], env)
    return {"wall_seconds": wall, "cpu_seconds": cpu}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slides", type=int, default=30)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--width", type=int, default=1600)
    parser.add_argument("--sandbox-pairs", type=int, default=3)
    args = parser.parse_args()
    results: dict[str, object] = {"slides": args.slides, "jobs": args.jobs,
                                  "load_before": os.getloadavg()}
    with tempfile.TemporaryDirectory(prefix="refig-bench-check-") as tmp:
        files = fresh_slides(Path(tmp), args.slides, seed=2)
        first = check(files, args.jobs)
        naive = naive_render(files, Path(tmp) / "naive", args.width)
        second = check(files, args.jobs)
        mean = (first["wall_seconds"] + second["wall_seconds"]) / 2
        results |= {
            "check": [first, second], "naive": naive,
            "ratio": naive["seconds"] / mean,
            "breakdown": {
                "import_seconds_check": import_time(REFIG, "check", "-q", "--json",
                                                    str(files[0]))["import_seconds"],
                "one_file": check(files[:1], args.jobs),
                "all_files_topology_only": check(files, args.jobs, "-m", "topology"),
                "all_files": check(files, args.jobs),
                "all_files_one_worker": check(files, 1),  # one office: does a second pay?
            },
        }
        unconfined = user_env(REFIG_RENDER_SANDBOX="none")
        pairs = [(check(files, args.jobs), check(files, args.jobs, env=unconfined))
                 for _ in range(args.sandbox_pairs)]
        results["sandbox"] = {
            "pairs": pairs,
            "wall_ratio": sum(s["wall_seconds"] for s, _ in pairs)
            / sum(u["wall_seconds"] for _, u in pairs),
            "cpu_ratio": sum(s["cpu_seconds"] for s, _ in pairs)
            / sum(u["cpu_seconds"] for _, u in pairs),
        }
    results["load_after"] = os.getloadavg()
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
