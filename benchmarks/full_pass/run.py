"""The whole deterministic pass (gate, object tree, render, every default metric, OCR of each
source once) through ``refig evaluate`` as a user runs it, against the naive way, in one run.

    uv run python benchmarks/full_pass/run.py [--sources 50] [--per-source 10] [--jobs 2]
        [--check 30] [--naive-ocr 4] [--ocr-figures 12] [--ray] [--json FILE]

1. Corpus: ``refig suite build sample`` (medium figures) and a run of ``--per-source`` slides of
   each, drawn from the exact annotations in ten styles (:mod:`slides`). Not timed.
   Before it, how much two workers gain over one here (:mod:`cores`): threads and processes.
2. Start-up: ``python -X importtime`` of ``refig --help``, ``list-plugins`` and ``check FILE``,
   with the bytecode cached and with every module compiled (a fresh clone's first command).
3. OCR: recall against the exact labels at several longest sides (always the text metric's),
   CPU seconds per megapixel; and at several sides of the text detector
   (``refig_toolkit_imaging.ocr.ScaledDetector``, 0 for RapidOCR's own rule), on the figures as they
   are and shrunk as a slide's pictures often are.
4. The pass: ``refig evaluate RUN -j N --json -q`` in a subprocess; wall and CPU seconds by stage,
   the load average before and after it.
5. ``refig check`` over ``--check`` fresh distinct slides, end to end, and the naive way over the
   same files (one cold soffice per file, sequential), and the warm LibreOffice floor on them.
6. ``--ray``: the same pass on a copy of the run with ``--executor ray`` on a local cluster of
   two one-CPU nodes, and how much of it the driver process did itself.

Every ``refig`` runs in a user's environment (:func:`baselines.user_env`). Other work on the
machine slows everything: compare the ratios, which are measured in one run, and the CPU seconds,
which load hardly changes. The projection to 10,000 artifacts over 1,000 sources keeps this
corpus's ten artifacts per source, so the pass scales by 10,000 / artifacts, and adds OCR of every
source once (see :func:`summarise`).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from baselines import import_time, naive_ocr, naive_render, user_env, warm_floor
from cores import measure as two_workers
from corpus import (
    FIGURE_WIDTH,
    REAL_FIGURES,
    build_suite,
    make_run,
    real_sizes,
    suite_tasks,
    unlabelled,
)
from ocr_knee import detector_sides, real_agreement
from ocr_knee import measure as ocr_knee
from ray_cluster import LocalCluster
from refig_metric_text.metric import OCR_MAX_SIDE
from refig_toolkit_imaging.ocr import DETECTOR_SIDE
from slides import STYLES, make_slide

REFIG = str(Path(sys.executable).with_name("refig"))
TARGET_ARTIFACTS, TARGET_SOURCES = 10_000, 1_000


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """Wall and CPU seconds (the process and what it waited for) of a command, and its stdout;
    in a user's environment (:func:`baselines.user_env`) unless ``env`` is given."""
    cpu, started = children_cpu(), time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env or user_env(),
                          check=False)
    wall = time.perf_counter() - started
    if done.returncode not in (0, 1) or not done.stdout.strip():
        raise SystemExit(f"{' '.join(argv[:3])} failed ({done.returncode}): {done.stderr[-2000:]}")
    return wall, children_cpu() - cpu, done.stdout


def evaluate(run: Path, jobs: int, *extra: str, env: dict[str, str] | None = None) -> dict:
    load = os.getloadavg()
    wall, cpu, out = timed([REFIG, "evaluate", str(run), "-j", str(jobs), "--json", "-q", *extra],
                           env)
    stages = json.loads(out)["stages"]
    return {"wall_seconds": wall, "cpu_seconds": cpu, "stages": stages,
            "load_average_before": load, "load_average_after": os.getloadavg()}


def check_corpus(suite: Path, out: Path, count: int) -> list[Path]:
    """``count`` fresh slides (seeds no run slide has), cycling over figures and styles."""
    out.mkdir()
    tasks = suite_tasks(suite)
    files = []
    for index in range(count):
        task = tasks[index % len(tasks)]
        inputs = task["inputs"]
        annotation = json.loads((suite / inputs["annotation"]["path"]).read_text())
        path = out / f"check-{index:03d}.pptx"
        make_slide(suite / inputs["figure"]["path"], annotation, index % STYLES, 10_000 + index,
                   path)
        files.append(path)
    return files


def fresh_slides(work: Path, count: int, seed: int) -> list[Path]:
    """``count`` fresh slides in ``work/slides`` over a suite of up to 50 figures built in
    ``work/suite`` (the corpus of the benchmarks that need slides and no run)."""
    build_suite(REFIG, work / "suite", min(count, 50), seed)
    return check_corpus(work / "suite", work / "slides", count)


def side_list(text: str, always: int) -> list[int]:
    """The sides a comma-separated ``text`` names, with ``always`` (the metric's own), sorted."""
    return sorted({int(side) for side in text.split(",")} | {always})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sources", type=int, default=50)
    parser.add_argument("--per-source", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--check", type=int, default=30, help="slides for check and naive")
    parser.add_argument("--naive-ocr", type=int, default=4, help="artifacts for naive OCR")
    parser.add_argument("--ocr-figures", type=int, default=12)
    parser.add_argument("--ocr-sides", default="1280,1600,2048,2560,4096")
    parser.add_argument("--detector-sides", default="0,768,1280",
                        help="the text detector's sides to compare (0: RapidOCR's own rule)")
    parser.add_argument("--width", type=int, default=1600)
    parser.add_argument("--real", type=Path, default=REAL_FIGURES,
                        help="real figures for the OCR check (skipped when absent)")
    parser.add_argument("--real-sizes", type=Path, default=REAL_FIGURES,
                        help="real figures whose sizes are stated beside the corpus's")
    parser.add_argument("--ray", action="store_true", help="also run the pass on Ray")
    parser.add_argument("--unlabelled", action="store_true",
                        help="hide the annotations from the metrics: the pass reads every "
                             "source by OCR itself, as for real figures, and none is projected")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--figure-width", type=int, nargs=2, default=list(FIGURE_WIDTH),
                        metavar=("LOW", "HIGH"), help="the range of the figures' widths (px)")
    args = parser.parse_args()

    results: dict[str, Any] = {"args": vars(args) | {"json": str(args.json)},
                               "cores": os.cpu_count(), "machine": platform.platform(),
                               "load_average_before": os.getloadavg(),
                               "two_workers": two_workers()}
    with tempfile.TemporaryDirectory(prefix="refig-bench-full-") as tmp:
        work = Path(tmp)
        suite, run = work / "suite", work / "run"
        results["corpus"] = build_suite(REFIG, suite, args.sources, args.seed,
                                        tuple(args.figure_width))
        started = time.perf_counter()
        tasks_from = unlabelled(suite, work / "suite-unlabelled") if args.unlabelled else None
        results["corpus"]["artifacts"] = make_run(suite, run, args.per_source, args.jobs,
                                                  tasks_from)
        results["corpus"]["build_seconds"] = time.perf_counter() - started
        if args.ray:
            shutil.copytree(run, work / "run-ray")
        files = check_corpus(suite, work / "check", args.check)

        results["startup"] = [import_time(REFIG, *argv, cold=cold) for cold in (False, True)
                              for argv in (("--help",), ("list-plugins",),
                                           ("check", "-q", "--json", str(files[0])))]
        sides = side_list(args.ocr_sides, OCR_MAX_SIDE)
        results["ocr"] = ocr_knee(suite, sides, min(args.ocr_figures, args.sources))
        detector = side_list(args.detector_sides, DETECTOR_SIDE)
        results["ocr"]["detector"] = detector_sides(suite, detector,
                                                    min(args.ocr_figures, args.sources),
                                                    OCR_MAX_SIDE)
        if args.real_sizes.is_dir():
            results["corpus"]["real_figures"] = real_sizes(args.real_sizes)
        if args.real.is_dir():
            results["ocr"]["real"] = real_agreement(args.real, sides)

        results["evaluate"] = evaluate(run, args.jobs)
        wall, cpu, _ = timed([REFIG, "check", "-q", "--json", *map(str, files)])
        results["check"] = {"files": len(files), "wall_seconds": wall, "cpu_seconds": cpu}
        results["naive"] = naive_render(files, work / "naive", args.width)
        sources = sorted((suite / "assets").glob("*.png"))[: args.naive_ocr]
        results["naive"]["ocr_seconds_per_artifact"] = naive_ocr(sources, max_side=OCR_MAX_SIDE)
        results["floor"] = warm_floor(files, args.jobs)
        if args.ray:
            try:
                with LocalCluster(nodes=2, cpus_per_node=1) as cluster:
                    # the nodes run this very environment: no uv runtime env to ship to them
                    # (under `uv run` Ray would otherwise package the project for its workers)
                    env = user_env(REFIG_RAY_ADDRESS=cluster.address,
                                   RAY_ENABLE_UV_RUN_RUNTIME_ENV="0")
                    results["ray"] = evaluate(work / "run-ray", 2, "--executor", "ray", env=env)
                    results["ray"]["spread"] = cluster.spread()
            except (Exception, SystemExit) as exc:  # the pass's own results are kept
                results["ray"] = {"error": f"{type(exc).__name__}: {exc}"}
    results["load_average_after"] = os.getloadavg()
    results["summary"] = summarise(results)
    print(report(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2, default=str))


def summarise(r: dict[str, Any]) -> dict[str, Any]:
    """The ratios and the projection the targets are stated in.

    The projection scales this pass by 10,000 / artifacts (the corpus keeps ReFigBench's ten
    artifacts per source) and adds OCR of every one of the 1,000 sources once, at the text
    metric's side, from the CPU seconds per megapixel measured here and this corpus's figure
    sizes: the generated suite's exact labels make the text metric read no source, but a
    benchmark of real figures without labels needs it. With ``--unlabelled`` the pass read every
    source itself and nothing is added. From CPU: everything divided over the cores (no idle
    core); from wall: this pass's wall scaled, plus the OCR over the cores.
    """
    stages = r["evaluate"]["stages"]
    seconds, cpu, artifacts = stages["seconds"], stages["cpu_seconds"], stages["artifacts"]
    naive = r["naive"]
    cores = r["cores"] or 1
    gtr = ("inspect", "render", "gate")
    ours_gtr = sum(seconds.get(stage, 0.0) for stage in gtr) / artifacts
    ours_gtr_cpu = sum(cpu.get(stage, 0.0) for stage in gtr) / artifacts
    naive_per_artifact = naive["seconds"] / naive["artifacts"]
    naive_cpu_per_artifact = naive["cpu_seconds"] / naive["artifacts"]
    render_per_slide = seconds["render"] / max(1, stages["rendered"])
    scale = TARGET_ARTIFACTS / artifacts
    corpus = r["corpus"]
    ocr_per_megapixel = r["ocr"]["sides"][OCR_MAX_SIDE]["cpu_seconds_per_megapixel"]
    ocr_cpu = (0.0 if r["args"]["unlabelled"]  # the pass read every source itself
               else ocr_per_megapixel * corpus["total_megapixels"] * TARGET_SOURCES
               / corpus["sources"])
    pass_cpu = r["evaluate"]["cpu_seconds"] * scale
    return {
        "artifacts": artifacts,
        "gate_tree_render_per_artifact": ours_gtr,
        "naive_gate_tree_render_per_artifact": naive_per_artifact,
        "gate_tree_render_speedup": naive_per_artifact / ours_gtr,
        "gate_tree_render_cpu_per_artifact": ours_gtr_cpu,
        "naive_cpu_per_artifact": naive_cpu_per_artifact,
        "gate_tree_render_cpu_speedup": naive_cpu_per_artifact / max(1e-9, ours_gtr_cpu),
        "check_speedup": naive["seconds"] / r["check"]["wall_seconds"],
        "render_per_slide": render_per_slide,
        "floor_per_slide": r["floor"]["seconds_per_slide"],
        "render_over_floor": render_per_slide / max(1e-9, r["floor"]["seconds_per_slide"]),
        "render_cpu_per_slide": cpu["render"] / max(1, stages["rendered"]),
        "floor_cpu_per_slide": r["floor"]["cpu_seconds_per_slide"],
        "ocr_side": OCR_MAX_SIDE,
        "ocr_cpu_seconds_per_megapixel": ocr_per_megapixel,
        "projected_source_ocr_cpu_seconds": ocr_cpu,
        "projected_pass_cpu_seconds": pass_cpu,
        "projected_minutes_from_cpu": (pass_cpu + ocr_cpu) / cores / 60,
        "projected_minutes_from_wall": (r["evaluate"]["wall_seconds"] * scale
                                        + ocr_cpu / cores) / 60,
        "parallel_efficiency": r["evaluate"]["cpu_seconds"] / (r["evaluate"]["wall_seconds"]
                                                               * cores),
        "ocr_naive_per_artifact": naive["ocr_seconds_per_artifact"],
    }


def report(r: dict[str, Any]) -> str:
    s, stages = r["summary"], r["evaluate"]["stages"]
    lines = [f"corpus: {r['corpus']}", f"two workers on this machine: {r['two_workers']}",
             f"load average before {r['load_average_before']}, after {r['load_average_after']}"
             f" on {r['cores']} cores", "", "| stage | wall s | CPU s | wall s per artifact |",
             "| --- | --- | --- | --- |"]
    for stage, wall in stages["seconds"].items():
        cpu = stages["cpu_seconds"].get(stage, 0.0)
        lines.append(f"| {stage} | {wall:.1f} | {cpu:.1f} | {wall / s['artifacts']:.3f} |")
    lines += ["", f"evaluate: {r['evaluate']['wall_seconds']:.1f} s wall, "
              f"{r['evaluate']['cpu_seconds']:.1f} s CPU for {s['artifacts']} artifacts",
              f"projection to {TARGET_ARTIFACTS:,} artifacts / {TARGET_SOURCES:,} sources, "
              f"OCR of every source at {s['ocr_side']} px "
              + ("in the pass itself: " if r["args"]["unlabelled"] else
                 f"added ({s['ocr_cpu_seconds_per_megapixel']:.2f} CPU s/MP, "
                 f"{s['projected_source_ocr_cpu_seconds']:.0f} CPU s): ")
              + f"{s['projected_minutes_from_wall']:.1f} min from this run's wall, "
              f"{s['projected_minutes_from_cpu']:.1f} min from its CPU over {r['cores']} cores "
              f"(parallel efficiency {s['parallel_efficiency']:.2f}; load during the pass "
              f"{r['evaluate']['load_average_before'][0]:.1f} -> "
              f"{r['evaluate']['load_average_after'][0]:.1f})",
              f"gate+tree+render: {s['gate_tree_render_per_artifact']:.3f} s/artifact vs naive "
              f"{s['naive_gate_tree_render_per_artifact']:.3f}: "
              f"{s['gate_tree_render_speedup']:.1f}x wall; CPU "
              f"{s['gate_tree_render_cpu_per_artifact']:.3f} vs "
              f"{s['naive_cpu_per_artifact']:.3f}: {s['gate_tree_render_cpu_speedup']:.1f}x",
              f"check over {r['check']['files']} slides: {r['check']['wall_seconds']:.1f} s vs "
              f"naive {r['naive']['seconds']:.1f} s: {s['check_speedup']:.1f}x",
              f"render {s['render_per_slide']:.3f} s/slide vs warm floor "
              f"{s['floor_per_slide']:.3f}: {s['render_over_floor']:.2f}x; CPU "
              f"{s['render_cpu_per_slide']:.3f} vs {s['floor_cpu_per_slide']:.3f} s/slide",
              f"naive OCR per artifact {s['ocr_naive_per_artifact']:.2f} s; knee "
              f"{r['ocr']['knee']} px: {json.dumps(r['ocr']['sides'])}",
              f"OCR by the detector's side (0: RapidOCR's own rule), by figure width (0: as "
              f"they are): {json.dumps(r['ocr']['detector']['widths'])}"]
    lines += [f"startup ({x['bytecode']}): {x['command'][:40]}: {x['import_seconds']:.2f} s "
              f"import, heavy {x['heavy']}" for x in r["startup"]]
    if "error" in r.get("ray", {}):
        lines.append(f"ray: failed: {r['ray']['error']}")
    elif "ray" in r:
        ray = r["ray"]
        lines += [f"ray (2 nodes x 1 CPU): {ray['wall_seconds']:.1f} s wall, driver CPU "
                  f"{ray['cpu_seconds']:.1f} s, stages {ray['stages']['seconds']}, "
                  f"spread {ray['spread']}"]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
