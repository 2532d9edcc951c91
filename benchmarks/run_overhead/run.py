"""refig's own cost per attempt, and the speed-up of concurrent attempts.

    uv run python benchmarks/run_overhead/run.py [--tasks 40] [--sleep 0.5] [--json FILE]

1. Overhead: a harness that returns at once (it writes a one-byte slide), run over ``--tasks``
   tasks with ``-j 1``: what remains is refig's scheduling, workspace creation and removal,
   output hashing and the store writes. Measured without a sandbox, and again with the harness
   starting one trivial command (``true``) in the bwrap sandbox and without it, to show what a
   sandboxed process start adds.
2. Concurrency: a harness whose agent sleeps ``--sleep`` seconds (a real ``sleep`` subprocess in
   the sandbox), run with ``-j 1`` and ``-j 8``; the ratio is the speed-up, 8 at best.

Everything is measured in the same run on the same machine; the harnesses are registered
in-process (no plugin needed), the rest is the real driver, executor, workspaces and store.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from PIL import Image
from refig.builtins.executors import LocalExecutor
from refig.models import Task
from refig.plugins import Selection
from refig.protocols import AttemptContext, Harness, HarnessResult, Prompt
from refig.records import Deliverable, ExecutorRecord, HarnessRecord, WorkflowRecord
from refig.running.runner import RunRequest, execute
from refig.running.sandbox import bwrap_works, run_command
from refig.suite import SuiteWriter

SLIDE_FILE = "slide.pptx"  # figure-to-slide's deliverable


class Workflow:
    def prepare(self, workspace: Path, task: Task, harness: str) -> Prompt:
        return Prompt(text="benchmark", version="bench.v1")


class Harness(Harness):
    """``mode``: ``instant`` (no process), ``true`` (one trivial command), ``sleep``."""

    def __init__(self, mode: str, seconds: float = 0.0):
        self.mode, self.seconds = mode, seconds

    def run(self, ctx: AttemptContext) -> HarnessResult:
        if self.mode == "true":
            run_command(ctx, ["true"])
        elif self.mode == "sleep":
            run_command(ctx, ["sleep", str(self.seconds)])
        (ctx.workspace / SLIDE_FILE).write_bytes(b"x")
        return HarnessResult(exit_code=0)


def make_suite(root: Path, n: int) -> Path:
    writer = SuiteWriter(root, name="bench", family="figure-to-slide", builder="benchmark")
    for index in range(n):
        buffer = io.BytesIO()
        Image.new("RGB", (64, 48), (index * 5 % 256, 90, 160)).save(buffer, "PNG")
        writer.add(f"t{index:04d}", f"t{index:04d}.png", buffer.getvalue())
    writer.finish()
    return root


def run(suite: Path, work: Path, harness: Harness, *, jobs: int, sandbox: str) -> dict[str, Any]:
    record = HarnessRecord(name="bench", description="benchmark",
                           factory=lambda **_: harness, needs_model=False)
    workflow = WorkflowRecord(name="bench", description="benchmark", factory=lambda **_: Workflow())
    executor = ExecutorRecord(name="local", description="local",
                              factory=lambda **_: LocalExecutor())
    out = Path(tempfile.mkdtemp(dir=work, prefix="run-"))
    request = RunRequest(
        suite=suite, out=out, harness=Selection(record, "bench"),
        workflow=Selection(workflow, "bench"), executor=Selection(executor, "refig"),
        jobs=jobs, timeout=120, sandbox=sandbox, workspace_root=work / "attempts",
        deliverables=(Deliverable("slide", SLIDE_FILE, primary=True),),
    )
    started = time.perf_counter()
    summary = execute(request, quiet=True)
    seconds = time.perf_counter() - started
    assert summary.succeeded == summary.planned, summary.as_json()
    return {"seconds": seconds, "attempts": summary.planned,
            "per_attempt": seconds / summary.planned,
            "median_attempt_wall": statistics.median(summary.walls)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=40)
    parser.add_argument("--sleep", type=float, default=0.5)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    sandboxes = ["none", "bwrap"] if bwrap_works() else ["none"]
    results: dict[str, Any] = {"tasks": args.tasks, "sleep": args.sleep}
    with tempfile.TemporaryDirectory(prefix="refig-bench-") as tmp:
        work = Path(tmp)
        suite = make_suite(work / "suite", args.tasks)
        run(suite, work, Harness("instant"), jobs=1, sandbox="none")  # warm imports and caches
        results["instant"] = run(suite, work, Harness("instant"), jobs=1, sandbox="none")
        for sandbox in sandboxes:
            results[f"true_{sandbox}"] = run(suite, work, Harness("true"), jobs=1,
                                             sandbox=sandbox)
        small = make_suite(work / "small", 16)
        sandbox = sandboxes[-1]
        for jobs in (1, 8):
            results[f"sleep_j{jobs}"] = run(small, work, Harness("sleep", args.sleep),
                                            jobs=jobs, sandbox=sandbox)
        results["sleep_sandbox"] = sandbox
    speedup = results["sleep_j1"]["seconds"] / results["sleep_j8"]["seconds"]
    results["speedup_j8"] = speedup
    print(f"attempts per configuration: {args.tasks} (instant, true), 16 (sleep {args.sleep}s)")
    print("| measurement | per attempt |")
    print("| --- | --- |")
    print(f"| refig overhead, harness returns at once, -j 1 | "
          f"{results['instant']['per_attempt'] * 1000:.1f} ms |")
    for sandbox in sandboxes:
        print(f"| harness starts `true`, sandbox {sandbox}, -j 1 | "
              f"{results[f'true_{sandbox}']['per_attempt'] * 1000:.1f} ms |")
    print(f"| agent sleeps {args.sleep}s, sandbox {sandbox}, -j 1 | "
          f"{results['sleep_j1']['per_attempt'] * 1000:.0f} ms |")
    print(f"| agent sleeps {args.sleep}s, sandbox {sandbox}, -j 8 | "
          f"{results['sleep_j8']['per_attempt'] * 1000:.0f} ms |")
    print(f"\nspeed-up from -j 1 to -j 8: {speedup:.2f}x (8x is the ideal)")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
