"""Judgments per second through the judging stage, against the ideal, with and without 429s.

2,000 judgments (400 artifacts x 5 repeats) by the real ``litellm`` rubric judge against the
OpenAI-style stand-in server (``refig_toolkit_testing.judge_server``), which answers every call
after a fixed latency. The server runs in its own process so it does not share the client's GIL. The
ideal wall time is calls x latency / concurrency: what a client with no overhead, holding exactly
``concurrency`` calls in flight, would take. Scenarios:

* ``clean``: no refusals; ``-j`` calls in flight.
* ``random-429``: the server refuses a share of calls at random with 429 and ``Retry-After``
  (one scenario per share given to ``--random-429``; by default 1%, 2% and 5%).
* ``capacity``: the server holds at most ``-j`` calls and refuses the rest with 429; the client
  starts at twice that, so the adaptive limit must find the capacity (ideal uses the capacity).

It also measures the client's cost per call (the stand-in answers at once; one call at a time):
the whole ``judge()`` (rubric, images, litellm, validation) against a bare HTTP post of the same
body, so litellm's share of it is visible.

    uv run python benchmarks/judge_throughput/run.py [--calls 2000] [--latency 0.5] [-j 16]
        [--random-429 0.01 0.02 0.05] [--only clean random-429 capacity]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from refig.judging import SelectedJudge, judge_artifacts
from refig.rubric import load_rubric
from refig.store import RunStore
from refig_judge_rubric.judge import build_judge
from refig_judge_rubric.messages import judge_messages
from refig_toolkit_testing import judge_request
from refig_toolkit_testing.judge_server import JudgeStandIn, sample_artifacts

REPEATS = 5


def serve(config: dict[str, Any]) -> None:
    """Child process: run a stand-in until stdin closes; print its URL first."""
    with JudgeStandIn(**config) as server:
        print(server.url, flush=True)
        sys.stdin.read()


class Server:
    """A stand-in in a child process."""

    def __init__(self, **config: Any):
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--serve", json.dumps(config)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )
        assert self.process.stdout is not None
        self.url = self.process.stdout.readline().strip()

    def stats(self) -> dict[str, Any]:
        return httpx.get(self.url + "/stats", timeout=10).json()

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


def judge_for(url: str) -> Any:
    return build_judge("litellm:openai/bench", {"api_base": url}, {"model": "openai/bench"})


def scenario(name: str, artifacts: list, *, calls: int, latency: float,
             server_config: dict[str, Any], client_jobs: int, ideal_concurrency: int) -> dict:
    server = Server(latency=latency, **server_config)
    try:
        judge = judge_for(server.url)
        with tempfile.TemporaryDirectory() as tmp:
            store = RunStore.create(Path(tmp) / "run")
            started = time.monotonic()
            summary = judge_artifacts(store, artifacts, [SelectedJudge(judge.label, judge)],
                                      repeats=REPEATS, jobs=client_jobs, quiet=True,
                                      rubric=load_rubric(family="figure-to-slide"))
            wall = time.monotonic() - started
        stats = server.stats()
    finally:
        server.close()
    ledger = summary.ledgers[0]
    ideal = calls * latency / ideal_concurrency
    return {
        "scenario": name,
        "judgments": ledger.judged,
        "failed": dict(ledger.failed),
        "server_calls": stats["calls"],
        "rate_limited": stats["replies"]["rate_limited"],
        "max_in_flight": stats["max_in_flight"],
        "wall_seconds": round(wall, 2),
        "ideal_seconds": round(ideal, 2),
        "ratio": round(wall / ideal, 3),
    }


def per_call_cost(artifact: Any, n: int) -> dict[str, float]:
    """Seconds per call, one at a time, with a zero-latency server: judge() vs a bare post."""
    server = Server(latency=0.0)
    try:
        judge = judge_for(server.url)
        request = judge_request(artifact, "objects: 3 shown", 0)
        judge.judge(request)  # warm: imports, image encoding, connection
        started = time.perf_counter()
        for _ in range(n):
            judge.judge(request)
        whole = (time.perf_counter() - started) / n
        rubric = load_rubric(family="figure-to-slide")
        body = {
            "model": "bench",
            "messages": judge_messages(rubric, request.evidence,
                                       max_side=2048),
            "response_format": rubric.response_format(),
        }
        with httpx.Client(timeout=30) as client:
            client.post(server.url + "/chat/completions", json=body)
            started = time.perf_counter()
            for _ in range(n):
                client.post(server.url + "/chat/completions", json=body).json()
            bare = (time.perf_counter() - started) / n
    finally:
        server.close()
    return {"judge_call_ms": round(whole * 1000, 2), "bare_http_ms": round(bare * 1000, 2),
            "client_overhead_ms": round((whole - bare) * 1000, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("-j", "--jobs", type=int, default=16)
    parser.add_argument("--random-429", type=float, nargs="+", default=[0.01, 0.02, 0.05])
    parser.add_argument("--retry-after", type=float, default=1.0)
    parser.add_argument("--only", nargs="*", choices=["clean", "random-429", "capacity"],
                        default=["clean", "random-429", "capacity"])
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    if args.serve:
        serve(json.loads(args.serve))
        return

    with tempfile.TemporaryDirectory() as tmp:
        artifacts = sample_artifacts(Path(tmp), args.calls // REPEATS)
        calls = len(artifacts) * REPEATS
        cost = per_call_cost(artifacts[0], 200)
        print(f"client cost per call: {cost}", flush=True)
        common = {"calls": calls, "latency": args.latency}
        plans: dict[str, list[tuple[str, dict[str, Any], int, int]]] = {
            "clean": [("clean", {}, args.jobs, args.jobs)],
            "random-429": [
                (f"random-429 {share:.0%}",
                 {"random_429": share, "retry_after": args.retry_after}, args.jobs, args.jobs)
                for share in args.random_429
            ],
            "capacity": [("capacity", {"capacity": args.jobs, "retry_after": args.retry_after},
                          2 * args.jobs, args.jobs)],
        }
        results = []
        for name, server_config, client_jobs, concurrency in (
            plan for only in args.only for plan in plans[only]
        ):
            result = scenario(name, artifacts, server_config=server_config,
                              client_jobs=client_jobs, ideal_concurrency=concurrency, **common)
            print(json.dumps(result), flush=True)
            results.append(result)
    report = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "settings": {"calls": calls, "latency": args.latency, "jobs": args.jobs,
                     "random_429": args.random_429, "retry_after": args.retry_after},
        "per_call": cost,
        "scenarios": results,
    }
    if args.out:
        args.out.write_text(json.dumps(report, indent=2) + "\n")
    print("\n| scenario | judgments | 429s | max in flight | wall (s) | ideal (s) | wall/ideal |")
    print("|---|---|---|---|---|---|---|")
    for r in results:
        print(f"| {r['scenario']} | {r['judgments']} | {r['rate_limited']} | {r['max_in_flight']} "
              f"| {r['wall_seconds']} | {r['ideal_seconds']} | {r['ratio']} |")


if __name__ == "__main__":
    main()
