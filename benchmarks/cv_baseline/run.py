"""How well the ``cv`` baseline draws a figure's graph: topology, arrow heads, bindings, text.

For each difficulty and seed, builds a generated ``sample`` suite (exact annotations), runs
``refig run --harness cv`` on it and ``refig evaluate --metric topology --metric connector-audit
--metric text``, then prints per suite the medians over its figures of node recall, edge recall
(direction counts), reversed share, arrow heads and attempt seconds, the bound share (connectors
bound at both ends over all connectors) and the median text recall. ``--real DIR`` does the same
for a folder of figures without annotations (no topology). ``--save`` keeps the numbers as JSON;
``--compare`` prints a saved run's numbers beside this one's (before / after).

    uv run python benchmarks/cv_baseline/run.py [--seeds 1 2 3] [--difficulty easy medium hard]
        [--n 12] [--real ../shared/data/real-figures] [--save after.json] [--compare before.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from refig.models import Attempt, AttemptStatus, MetricValue
from refig.store import RunStore

REFIG = str(Path(sys.executable).parent / "refig")
COLUMNS = ("node", "edge", "reversed", "heads", "bound", "text", "seconds")


def refig(*args: str) -> None:
    subprocess.run([REFIG, *args, "-q"], check=True, stdout=subprocess.DEVNULL)


def measure(suite: Path, run: Path, jobs: int) -> dict[str, float | None]:
    """Run and evaluate the cv baseline on ``suite``; the suite's summary numbers."""
    refig("run", "--suite", str(suite), "--harness", "cv", "--out", str(run), "-j", str(jobs),
          "--workspace-root", str(run.parent / f"{run.name}-attempts"))
    refig("evaluate", str(run), "--metric", "topology", "--metric", "connector-audit",
          "--metric", "text", "-j", str(jobs))
    store = RunStore.open(run)
    values: dict[str, dict[str, float]] = defaultdict(dict)
    for row in store.iter(MetricValue):
        if row.value is not None:
            values[row.artifact_sha256][f"{row.metric}/{row.name}"] = row.value
    attempts = store.query(Attempt)
    failed = sum(a.status is not AttemptStatus.SUCCEEDED for a in attempts)
    slides = [values[a.output("slide")] for a in attempts if a.output("slide") in values]

    def median(name: str) -> float | None:
        found = [v[name] for v in slides if name in v]
        return statistics.median(found) if found else None

    connectors = sum(v.get("connector-audit/connector_count", 0) for v in slides)
    bound = sum(v.get("connector-audit/bound_connectors", 0) for v in slides)
    return {
        "figures": len(attempts), "failed": failed,
        "node": median("topology/node_recall"), "edge": median("topology/edge_recall"),
        "edge_mean": statistics.mean(found) if (found := [
            v["topology/edge_recall"] for v in slides if "topology/edge_recall" in v]) else None,
        "reversed": median("topology/reversed_share"),
        "heads": median("connector-audit/arrow_heads"),
        "bound": bound / connectors if connectors else None,
        "text": median("text/recall"),
        "seconds": statistics.median(a.wall_seconds for a in attempts) if attempts else None,
    }


def show(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}" if value < 10 else f"{value:.1f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--difficulty", nargs="+", default=["easy", "medium", "hard"])
    parser.add_argument("--n", type=int, default=12)
    parser.add_argument("--real", type=Path, help="also a folder of real figures")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--out", type=Path, help="keep suites and runs here")
    parser.add_argument("--save", type=Path, help="write the numbers as JSON")
    parser.add_argument("--compare", type=Path, help="numbers saved by an earlier --save")
    args = parser.parse_args()
    from refig_suite_sample import build_sample

    before = json.loads(args.compare.read_text()) if args.compare else {}
    results: dict[str, dict[str, float | None]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = args.out or Path(tmp)
        suites = [(f"{d}-{s}", d, s) for d in args.difficulty for s in args.seeds]
        for name, difficulty, seed in suites:
            build_sample(root / "suites" / name, n=args.n, seed=seed, difficulty=difficulty)
            results[name] = measure(root / "suites" / name, root / "runs" / name, args.jobs)
            print(f"measured {name}", file=sys.stderr, flush=True)
        if args.real:
            refig("suite", "build", "folder", "--from", str(args.real), "--out",
                  str(root / "suites" / "real"))
            results["real"] = measure(root / "suites" / "real", root / "runs" / "real", args.jobs)
    if args.save:
        args.save.write_text(json.dumps(results, indent=1) + "\n")
    header = "suite        " + "".join(f"{c:>16}" for c in COLUMNS)
    print(header + ("\n" + " " * 13 + "".join(f"{'before -> now':>16}" for _ in COLUMNS)
                    if before else ""))
    for name, now in results.items():
        cells = []
        for column in COLUMNS:
            old = before.get(name, {}).get(column) if before else None
            cell = show(now[column]) if not before else f"{show(old)} -> {show(now[column])}"
            cells.append(f"{cell:>16}")
        failed = f"  ({now['failed']} failed)" if now["failed"] else ""
        print(f"{name:<13}" + "".join(cells) + failed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
