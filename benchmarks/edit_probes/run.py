"""What the ``edit-probes`` metric scores and what it costs, in one run.

1. Scores: a generated ``sample`` suite (medium figures), each figure's slide in the ten styles of
   ``benchmarks/full_pass/slides.py`` (a native rebuild with glued arrows, free lines, text only,
   unlabelled boxes, the source pasted whole, the source under native text, half the nodes, a
   shifted layout, reversed arrows, pasted crops), and the ``cv`` and ``raster-paste`` baselines
   run on the same suite. Per style and baseline: the mean ``probe_score``, how many slides had a
   probe that applied, and the pass rate of each probe.
2. Cost: ``refig check`` over the style slides, as a user runs it, without the probes
   (``-m connector-audit``: inspect, render, a metric that only reads the tree) and with them
   (``-m connector-audit -m edit-probes``), alternated ``--rounds`` times, twice: every slide
   alone (no source: each probe deck its own conversion call) and by source (``--source`` the
   figure, once per figure, as a run's artifacts of one task are measured together, so the
   probe decks of a source share one call); the wall ratio, and the probes' stage seconds over
   the render stage's in the same run (what the probes cost in renders an artifact).

    uv run python benchmarks/edit_probes/run.py [--n 4] [--seed 0] [--rounds 2] [--json FILE]
        [--section all|cost]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "full_pass"))

from refig.models import Attempt, MetricValue
from refig.store import RunStore
from slides import STYLES, make_slide

REFIG = str(Path(sys.executable).parent / "refig")
STYLE_NAMES = (
    "native, glued",
    "free lines",
    "text only",
    "unlabelled boxes",
    "pasted whole",
    "source under native text",
    "half the nodes",
    "shifted",
    "reversed arrows",
    "pasted crops",
)
STAGE = re.compile(r"^(render|metric [\w-]+): (\d+) done, (\d+) failed in ([\d.]+)s", re.M)


def check_by_source(
    files: dict[Path, Path], *metrics: str
) -> tuple[float, dict[str, float], list[dict]]:
    """:func:`check` once per source figure over the slides made of it, as a run's artifacts
    of one task are measured together (what lets the probes batch): summed."""
    wall, stages, rows = 0.0, defaultdict(float), []
    for figure in dict.fromkeys(files.values()):
        mine = [path for path, made_of in files.items() if made_of == figure]
        seconds, found, more = check(mine, *metrics, source=figure)
        wall += seconds
        rows += more
        for stage, time_spent in found.items():
            stages[stage] += time_spent
    return wall, dict(stages), rows


def cost(files: list[Path], figures: dict[Path, Path], rounds: int) -> dict[str, Any]:
    """The probes' cost, ``rounds`` alternations: slides checked each alone (no source: every
    probe deck its own conversion call) and by source (one call for a source's slides)."""
    result: dict[str, Any] = {"artifacts": len(files)}
    scores: dict[str, dict[str, Any]] = {}
    for mode in ("alone", "by source"):
        runs = []
        for _ in range(rounds):
            if mode == "alone":
                without, stages_without, _ = check(files, "connector-audit")
                with_probes, stages, rows = check(files, "connector-audit", "edit-probes")
            else:
                without, stages_without, _ = check_by_source(figures, "connector-audit")
                with_probes, stages, _ = check_by_source(figures, "connector-audit", "edit-probes")
            runs.append(
                {
                    "wall_without": round(without, 2),
                    "wall_with": round(with_probes, 2),
                    "render_without": stages_without.get("render"),
                    "render_with": stages.get("render"),
                    "probes": stages.get("metric edit-probes"),
                }
            )
        scores[mode] = {Path(r["file"]).name: r["metrics"]["edit-probes"] for r in rows}
        best = min(runs, key=lambda r: r["wall_with"])
        result[mode] = {
            "rounds": runs,
            "wall_ratio_with_over_without": round(
                min(r["wall_with"] for r in runs) / min(r["wall_without"] for r in runs), 2
            ),
            "probe_stage_over_render_stage": round(best["probes"] / best["render_with"], 2)
            if best["probes"] and best["render_with"]
            else None,
        }
    result["same_values_alone_and_by_source"] = scores["alone"] == scores["by source"]
    return result


def style_slides(suite: Path, out: Path, seed: int, figures: dict[Path, Path]) -> dict[Path, str]:
    """Every figure's slide in every style; the style of each file (its figure in
    ``figures``)."""
    out.mkdir(parents=True)
    made: dict[Path, str] = {}
    for line in (suite / "tasks.jsonl").read_text().splitlines():
        task = json.loads(line)
        figure = suite / task["inputs"]["figure"]["path"]
        annotation = json.loads((suite / task["inputs"]["annotation"]["path"]).read_text())
        for style in range(STYLES):
            path = out / f"{task['id']}-style{style}.pptx"
            make_slide(figure, annotation, style, seed, path)
            made[path] = STYLE_NAMES[style]
            figures[path] = figure
    return made


def check(
    files: list[Path], *metrics: str, source: Path | None = None
) -> tuple[float, dict[str, float], list[dict]]:
    """``refig check`` over the files (against ``source`` when given): its wall seconds, each
    stage's seconds, its rows."""
    argv = [REFIG, "check", "--json", *(a for m in metrics for a in ("-m", m))]
    argv += ["--source", str(source)] if source else []
    argv += map(str, files)
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - started
    stages = {m[1]: float(m[4]) for m in STAGE.finditer(done.stderr)}
    return wall, stages, json.loads(done.stdout)


def probe_detail(path: Path) -> dict[str, Any]:
    """The probe score and every probe's outcome of one slide (``refig check --json`` prints
    the values only)."""
    import hashlib

    from refig.plugin import Artifact, GateResult
    from refig_metric_edit_probes.metric import EditProbes

    artifact = Artifact(
        path=path,
        sha256=hashlib.sha256(path.read_bytes()).hexdigest(),
        gate=GateResult(passed=True, slides=1),
    )
    values = {v.name: v for v in EditProbes().compute(artifact)}
    score = values["probe_score"]
    return {"probe_score": score.value, "probes": score.detail.get("probes", [])}


def summarise(scores: list[dict[str, Any]]) -> dict[str, Any]:
    """Mean probe score, how many slides a probe applied to, and each probe's pass rate."""
    values = [s["probe_score"] for s in scores if s["probe_score"] is not None]
    passes: dict[str, list[bool]] = defaultdict(list)
    for s in scores:
        for probe in s.get("probes", []):
            if probe["applicable"] and probe.get("passed") is not None:
                passes[probe["probe"]].append(bool(probe["passed"]))
    return {
        "slides": len(scores),
        "applicable_slides": len(values),
        "probe_score": round(statistics.mean(values), 3) if values else None,
        **{f"{p}_pass": round(sum(v) / len(v), 2) if v else None for p, v in passes.items()},
    }


def baseline(suite: Path, root: Path, harness: str) -> list[dict[str, Any]]:
    """Run a baseline on the suite and evaluate it with the probes; each slide's probe detail."""
    run = root / f"run-{harness}"
    subprocess.run(
        [
            REFIG,
            "run",
            "--suite",
            str(suite),
            "--harness",
            harness,
            "--out",
            str(run),
            "--workspace-root",
            str(root / f"{harness}-attempts"),
            "-q",
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    subprocess.run(
        [REFIG, "evaluate", str(run), "-m", "edit-probes", "-q"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    store = RunStore.open(run)
    slides = {a.output("slide") for a in store.query(Attempt)}
    return [
        {"probe_score": row.value, "probes": row.detail.get("probes", [])}
        for row in store.iter(MetricValue)
        if row.metric == "edit-probes"
        and row.name == "probe_score"
        and row.artifact_sha256 in slides
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=4, help="figures of the sample suite")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=2, help="alternations of the cost runs")
    parser.add_argument("--json", type=Path, help="write the numbers here too")
    parser.add_argument("--section", choices=("all", "cost"), default="all")
    args = parser.parse_args()
    from refig_suite_sample import build_sample

    result: dict[str, Any] = {"n": args.n, "seed": args.seed}
    with tempfile.TemporaryDirectory(prefix="refig-bench-probes-") as tmp:
        root = Path(tmp)
        suite = root / "suite"
        build_sample(suite, n=args.n, seed=args.seed, difficulty="medium")
        figures: dict[Path, Path] = {}
        styles = style_slides(suite, root / "slides", args.seed, figures)
        files = list(styles)
        result["cost"] = cost(files, figures, args.rounds)
        if args.section == "all":
            by_style: dict[str, list[dict[str, Any]]] = defaultdict(list)
            for path, style in styles.items():
                by_style[style].append(probe_detail(path))
            result["styles"] = {name: summarise(by_style[name]) for name in STYLE_NAMES}
            result["baselines"] = {
                h: summarise(baseline(suite, root, h)) for h in ("cv", "raster-paste")
            }
    print(json.dumps(result, indent=1))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
