"""The edit probes' cost inside the whole deterministic pass, in one run.

    uv run python benchmarks/full_pass/probes.py [--sources 20] [--per-source 10] [--jobs 2]
        [--rounds 2] [--stage-only] [--json FILE]

The corpus of :mod:`run` (a ``sample`` suite and ``--per-source`` slides of each figure in the
ten styles of :mod:`slides`), copied once per pass. Each round evaluates two fresh copies with
``refig evaluate COPY -j N --json -q`` as a user runs it: the pass without the probes (every
default metric of figure-to-slide) and the same pass with them (the default metrics named, and
``-m edit-probes``), in alternating order (A B, then B A, ...) so that load drifting over the
run falls on both. Reported per round: each pass's wall and CPU seconds and load average, the
wall ratio with / without, the probes' stage over the render stage of the same pass (what the
probes cost in renders an artifact), and what the probes add to the whole pass (with minus without,
wall and CPU) over the render stage of the pass without them (the issue's "add at most one
render's worth"). The machine is shared: compare the ratios, measured in one run, not the
seconds; the stage ratio moves with the render stage's own spread, the added ratio with both
passes'. ``--stage-only``: each round one pass with the probes alone (``-m edit-probes``), for
the stage ratio at sizes where a pair of passes a round takes too long (10,000 artifacts).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
from pathlib import Path
from typing import Any

from corpus import build_suite, make_run
from refig.engine.plugins import installed_records
from run import REFIG, evaluate

FAMILY = "figure-to-slide"
PROBES = "edit-probes"


def default_metrics() -> list[str]:
    """The metrics ``refig evaluate`` runs on a figure-to-slide run when none is named."""
    return sorted(r.name for r in installed_records("metric")
                  if getattr(r, "default", False) and FAMILY in getattr(r, "families", ()))


def measure(run: Path, work: Path, jobs: int, rounds: int) -> list[dict[str, Any]]:
    """``rounds`` pairs of passes on fresh copies of ``run``, alternating which goes first."""
    defaults = [arg for name in default_metrics() for arg in ("-m", name)]
    passes = {"without": defaults, "with": [*defaults, "-m", PROBES]}
    found = []
    for index in range(rounds):
        order = ("without", "with") if index % 2 == 0 else ("with", "without")
        result: dict[str, Any] = {"order": list(order)}
        for name in order:
            copy = work / f"run-{index}-{name}"
            shutil.copytree(run, copy)
            result[name] = evaluate(copy, jobs, *passes[name])
            shutil.rmtree(copy)
        stages = result["with"]["stages"]["seconds"]
        probe_stage = next(v for k, v in stages.items() if PROBES in k)
        result["wall_ratio"] = result["with"]["wall_seconds"] / result["without"]["wall_seconds"]
        result["cpu_ratio"] = result["with"]["cpu_seconds"] / result["without"]["cpu_seconds"]
        result["probes_over_render"] = probe_stage / stages["render"]
        without = result["without"]
        for unit, key in (("wall", "seconds"), ("cpu", "cpu_seconds")):
            added = result["with"][f"{unit}_seconds"] - without[f"{unit}_seconds"]
            result[f"added_{unit}_over_render"] = added / without["stages"][key]["render"]
        found.append(result)
    return found


def stage_only(run: Path, work: Path, jobs: int, rounds: int) -> list[dict[str, Any]]:
    """``rounds`` passes with the probes alone, each on a fresh copy of ``run``: the probe stage
    over the render stage of the same pass, in wall and CPU."""
    found = []
    for index in range(rounds):
        copy = work / f"run-{index}"
        shutil.copytree(run, copy)
        result = evaluate(copy, jobs, "-m", PROBES)
        shutil.rmtree(copy)
        seconds, cpu = result["stages"]["seconds"], result["stages"]["cpu_seconds"]
        probe = next(k for k in seconds if PROBES in k)
        found.append({"pass": result, "render_seconds": seconds["render"],
                      "probe_seconds": seconds[probe],
                      "probes_over_render": seconds[probe] / seconds["render"],
                      "cpu_probes_over_render": cpu[probe] / cpu["render"]})
    return found


def report_stage_only(results: dict[str, Any]) -> str:
    lines = [f"corpus: {results['corpus']}", "",
             "| round | pass wall s (CPU s) | render stage s | probe stage s "
             "| probes / render, wall | CPU | load (1 min) before |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for index, r in enumerate(results["rounds"], start=1):
        run = r["pass"]
        lines.append(f"| {index} | {run['wall_seconds']:.1f} ({run['cpu_seconds']:.1f}) "
                     f"| {r['render_seconds']:.1f} | {r['probe_seconds']:.1f} "
                     f"| {r['probes_over_render']:.2f} | {r['cpu_probes_over_render']:.2f} "
                     f"| {run['load_average_before'][0]:.1f} |")
    return "\n".join(lines)


def report(results: dict[str, Any]) -> str:
    rounds = results["rounds"]
    lines = [f"corpus: {results['corpus']}; default metrics {results['defaults']}",
             f"load average before {results['load_average_before']}, after "
             f"{results['load_average_after']} on {results['cores']} cores", "",
             "| round | order | without: wall s (CPU s) | with: wall s (CPU s) | wall ratio "
             "| CPU ratio | probes stage / render stage | load (1 min) during "
             "| added wall / render | added CPU / render |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for index, r in enumerate(rounds, start=1):
        a, b = r["without"], r["with"]
        load = [round(p["load_average_before"][0], 1) for p in (a, b)]
        lines.append(f"| {index} | {' then '.join(r['order'])} | {a['wall_seconds']:.1f} "
                     f"({a['cpu_seconds']:.1f}) | {b['wall_seconds']:.1f} "
                     f"({b['cpu_seconds']:.1f}) | {r['wall_ratio']:.2f} | {r['cpu_ratio']:.2f} "
                     f"| {r['probes_over_render']:.2f} | {load} "
                     f"| {r['added_wall_over_render']:.2f} | {r['added_cpu_over_render']:.2f} |")
    lines.append(f"median wall ratio {results['median_wall_ratio']:.2f}, CPU ratio "
                 f"{results['median_cpu_ratio']:.2f}, probes / render "
                 f"{results['median_probes_over_render']:.2f}, added over render: wall "
                 f"{results['median_added_wall_over_render']:.2f}, CPU "
                 f"{results['median_added_cpu_over_render']:.2f}")
    for index, r in enumerate(rounds, start=1):
        lines.append(f"round {index} stages with the probes: {r['with']['stages']['seconds']}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sources", type=int, default=20)
    parser.add_argument("--per-source", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--stage-only", action="store_true",
                        help="one pass a round with the probes alone: the stage ratio only")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    results: dict[str, Any] = {"args": vars(args) | {"json": str(args.json)},
                               "cores": os.cpu_count(), "defaults": default_metrics(),
                               "load_average_before": os.getloadavg()}
    with tempfile.TemporaryDirectory(prefix="refig-bench-probes-") as tmp:
        work = Path(tmp)
        results["corpus"] = build_suite(REFIG, work / "suite", args.sources, args.seed)
        results["corpus"]["artifacts"] = make_run(work / "suite", work / "run",
                                                  args.per_source, args.jobs)
        way = stage_only if args.stage_only else measure
        results["rounds"] = way(work / "run", work, args.jobs, args.rounds)
    results["load_average_after"] = os.getloadavg()
    if args.stage_only:
        print(report_stage_only(results))
    else:
        for key in ("wall_ratio", "cpu_ratio", "probes_over_render", "added_wall_over_render",
                    "added_cpu_over_render"):
            results[f"median_{key}"] = statistics.median(r[key] for r in results["rounds"])
        print(report(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2, default=str))


if __name__ == "__main__":
    main()
