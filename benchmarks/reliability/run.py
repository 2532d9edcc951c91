"""What issue 20's safeguards cost: the gateway tunnel per model call, the claims per attempt.

    uv run python benchmarks/reliability/run.py [--calls 300] [--attempts 8] [--json FILE]

1. Tunnel: a process in the bwrap sandbox makes ``--calls`` sequential POSTs to the recording
   gateway in front of an instant model stand-in, once with the host's network (the gateway's
   TCP port directly) and once in its own network namespace (in-sandbox forwarder, Unix socket,
   host relay, gateway). The difference of the medians is what the tunnel adds to one call.
2. Claims: an 8-attempt ``refig run`` whose harness returns at once, measured with the claims
   as they are and with claiming replaced by a no-op, in the same process; the difference is
   the lease's cost on the run (claim, heartbeat, release: a few SQLite transactions each).

3. XML parts: with ``--decks DIR``, the time the gate spends parsing every XML part of each
   deck (``check_xml_parts``), next to the time of the whole gate on it (median of 5 each).

Every baseline is measured in the same run on the same machine.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from PIL import Image
from refig.builtins.executors import LocalExecutor
from refig.claims import Claims
from refig.models import Asset, Task
from refig.plugins import Selection
from refig.protocols import AttemptContext, Harness, HarnessResult, Prompt
from refig.records import Deliverable, ExecutorRecord, HarnessRecord, WorkflowRecord
from refig.running.runner import RunRequest, execute
from refig.running.sandbox import SandboxPolicy, bwrap_works, run_command
from refig.running.workspace import AttemptDirs, attempt_env
from refig.suite import SuiteWriter
from refig_toolkit_agent.gateway import Gateway, Upstream
from refig_toolkit_agent.httpserver import LocalServer, Response
from refig_toolkit_agent.tunnel import GatewayTunnel

CLIENT = """
import json, statistics, sys, time, urllib.request
url, n = sys.argv[1], int(sys.argv[2])
body = json.dumps({"model": "m", "messages": []}).encode()
times = []
for _ in range(n):
    started = time.perf_counter()
    request = urllib.request.Request(url + "/v1/chat/completions", data=body,
                                     headers={"Content-Type": "application/json"})
    urllib.request.urlopen(request, timeout=30).read()
    times.append(time.perf_counter() - started)
print(json.dumps(times))
"""


def _answer(_: Any) -> Response:
    return Response.json({"id": "x", "object": "chat.completion", "model": "m", "choices": [],
                          "usage": {"prompt_tokens": 1, "completion_tokens": 1}})


def tunnel(root: Path, calls: int, network: str) -> list[float]:
    dirs = AttemptDirs.create(root, f"bench-{network}")
    task = Task(id="t", family="figure-to-slide",
                inputs={"figure": Asset(path="s.png", sha256="0" * 64)})
    ctx = AttemptContext(
        task=task, workspace=dirs.workspace, source=dirs.workspace / "s.png",
        prompt=Prompt("bench", version="1"), model="m", deadline=time.monotonic() + 600,
        env=attempt_env(dirs, f"bench-{network}"), options={}, log=dirs.log,
        attempt_id=f"bench-{network}", home=dirs.home, outputs_dir=dirs.outputs,
        sandbox=SandboxPolicy.create("bwrap", egress=network))
    script = dirs.workspace / "client.py"
    script.write_text(CLIENT)
    out = dirs.workspace / "times.json"
    with LocalServer(_answer, keep_requests=False) as server, \
            Gateway(Upstream(server.url)) as gateway, \
            GatewayTunnel(gateway.url, ctx.sandbox) as tube:
        done = run_command(ctx, tube.wrap([sys.executable, str(script), gateway.url,
                                           str(calls)]),
                           stdout=out, writable=tube.writable, network=network == "host")
        assert done.exit_code == 0, dirs.log.read_text()
    return json.loads(out.read_text())


class _Instant(Harness):
    def run(self, ctx: AttemptContext) -> HarnessResult:
        (ctx.workspace / "slide.pptx").write_bytes(b"x")
        return HarnessResult(exit_code=0)


class _Workflow:
    def prepare(self, workspace: Path, task: Task, harness: str) -> Prompt:
        return Prompt(text="go", version="v1")


def one_run(root: Path, attempts: int, tag: str) -> float:
    writer = SuiteWriter(root / f"suite-{tag}", name="bench", family="figure-to-slide",
                         builder="bench")
    for index in range(attempts):
        buffer = io.BytesIO()
        Image.new("RGB", (8, 8), (index, 0, 0)).save(buffer, "PNG")
        writer.add(f"t{index}", f"t{index}.png", buffer.getvalue())
    writer.finish()

    def record(kind: Any, make: Any, **extra: Any) -> Selection:
        return Selection(kind(name="bench", description="bench", factory=lambda **_: make(),
                              **extra), "bench")

    request = RunRequest(
        suite=root / f"suite-{tag}", out=root / f"run-{tag}", jobs=1, timeout=60,
        harness=record(HarnessRecord, _Instant, needs_model=False),
        workflow=record(WorkflowRecord, _Workflow),
        executor=record(ExecutorRecord, LocalExecutor), workspace_root=root / f"ws-{tag}",
        sandbox="none", deliverables=(Deliverable("slide", "slide.pptx", primary=True),))
    started = time.perf_counter()
    execute(request, quiet=True)
    return time.perf_counter() - started


def claims(root: Path, attempts: int, rounds: int) -> tuple[float, float]:
    with_claims, without = [], []
    real_claim, real_release = Claims.claim, Claims.release
    for index in range(rounds):
        with_claims.append(one_run(root, attempts, f"c{index}"))
        Claims.claim = lambda self, item: True  # type: ignore[method-assign]
        Claims.release = lambda self, item: None  # type: ignore[method-assign]
        try:
            without.append(one_run(root, attempts, f"n{index}"))
        finally:
            Claims.claim, Claims.release = real_claim, real_release  # type: ignore[method-assign]
    return statistics.median(with_claims), statistics.median(without)


def xml_parts(decks: Path) -> dict[str, Any]:
    from refig_toolkit_pptx.gate import inspect_structure
    from refig_toolkit_pptx.package import Package
    from refig_toolkit_pptx.parts import check_xml_parts

    parts, gates = [], []
    for deck in sorted(decks.glob("*.pptx")):
        timed_parts, timed_gate = [], []
        for _ in range(5):
            started = time.perf_counter()
            inspect_structure(deck)
            timed_gate.append(time.perf_counter() - started)
            with Package.open(deck) as package:
                started = time.perf_counter()
                check_xml_parts(package)
                timed_parts.append(time.perf_counter() - started)
        parts.append(statistics.median(timed_parts))
        gates.append(statistics.median(timed_gate))
    return {"decks": len(parts), "parts_median_ms": round(statistics.median(parts) * 1000, 2),
            "parts_max_ms": round(max(parts) * 1000, 2),
            "gate_median_ms": round(statistics.median(gates) * 1000, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--attempts", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--decks", type=Path, help="a folder of .pptx files (XML part timing)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="refig-bench-") as tmp:
        root = Path(tmp)
        if bwrap_works():
            host = tunnel(root, args.calls, "host")
            gated = tunnel(root, args.calls, "gateway")
            results["tunnel"] = {
                "calls": args.calls,
                "host_median_ms": round(statistics.median(host) * 1000, 3),
                "tunnel_median_ms": round(statistics.median(gated) * 1000, 3),
                "added_median_ms": round((statistics.median(gated)
                                          - statistics.median(host)) * 1000, 3),
            }
        timed, bare = claims(root, args.attempts, args.rounds)
        results["claims"] = {
            "attempts": args.attempts, "rounds": args.rounds,
            "run_with_claims_s": round(timed, 4), "run_without_s": round(bare, 4),
            "added_per_attempt_ms": round((timed - bare) / args.attempts * 1000, 3),
        }
    if args.decks is not None:
        results["xml_parts"] = xml_parts(args.decks)
    text = json.dumps(results, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    main()
