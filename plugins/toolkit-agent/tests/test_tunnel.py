"""The gateway is an attempt's only way out: a real process in bubblewrap's own network
namespace reaches the gateway through the tunnel, and nothing else on the host's loopback."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
from refig.models import Asset, Task
from refig.protocols import AttemptContext, Prompt
from refig.running.sandbox import SandboxPolicy, bwrap_works, run_command
from refig.running.workspace import AttemptDirs, attempt_env
from refig_toolkit_agent.gateway import Gateway, Upstream
from refig_toolkit_agent.httpserver import LocalServer, Request, Response
from refig_toolkit_agent.tunnel import GatewayTunnel

pytestmark = pytest.mark.skipif(not bwrap_works(), reason="bubblewrap cannot run here")

PROBE = """
import json, socket, sys, urllib.request
gateway, direct = sys.argv[1], int(sys.argv[2])
seen = {}
body = json.dumps({"model": "m", "messages": []}).encode()
request = urllib.request.Request(gateway + "/v1/chat/completions", data=body,
                                 headers={"Content-Type": "application/json"})
seen["gateway"] = urllib.request.urlopen(request, timeout=20).status
for name, address in (("host_loopback", ("127.0.0.1", direct)), ("internet", ("1.1.1.1", 80))):
    try:
        socket.create_connection(address, timeout=5).close()
        seen[name] = "connected"
    except OSError as exc:
        seen[name] = type(exc).__name__
print(json.dumps(seen))
"""


def answer(request: Request) -> Response:
    return Response.json({"id": "x", "object": "chat.completion", "model": "m", "choices": [],
                          "usage": {"prompt_tokens": 1, "completion_tokens": 1}})


def context(tmp_path: Path, network: str) -> AttemptContext:
    dirs = AttemptDirs.create(tmp_path / "attempts", f"net-{network}")
    task = Task(id="t", family="figure-to-slide",
                inputs={"figure": Asset(path="s.png", sha256="0" * 64)})
    return AttemptContext(
        task=task, workspace=dirs.workspace, source=dirs.workspace / "s.png",
        prompt=Prompt("probe", version="1"), model="m", deadline=time.monotonic() + 60,
        env=attempt_env(dirs, f"net-{network}"), options={}, log=dirs.log,
        attempt_id=f"net-{network}", home=dirs.home, outputs_dir=dirs.outputs,
        sandbox=SandboxPolicy.create("bwrap", egress=network))


def probe(tmp_path: Path, network: str) -> tuple[dict[str, object], int, int]:
    """What the probe reached, the gateway's call count, the model server's request count."""
    ctx = context(tmp_path, network)
    script = ctx.workspace / "probe.py"
    script.write_text(PROBE)
    out = ctx.workspace / "seen.json"
    with LocalServer(answer) as server, Gateway(Upstream(server.url)) as gateway, \
            GatewayTunnel(gateway.url, ctx.sandbox) as tunnel:
        port = int(server.url.rsplit(":", 1)[1])
        argv = [sys.executable, str(script), gateway.url, str(port)]
        done = run_command(ctx, tunnel.wrap(argv), stdout=out, writable=tunnel.writable,
                           network=ctx.sandbox.reach == "host")
        assert done.exit_code == 0, ctx.log.read_text()
        served = len(server.requests)
        calls = len(gateway.calls)
    return json.loads(out.read_text()), calls, served


def test_only_the_gateway_is_reachable_and_it_sees_every_call(tmp_path: Path) -> None:
    seen, calls, served = probe(tmp_path, "gateway")
    assert seen["gateway"] == 200
    assert seen["host_loopback"] == "ConnectionRefusedError"  # the model server is not there
    assert seen["internet"] != "connected"
    assert calls == served == 1


def test_the_host_network_is_opened_only_when_asked(tmp_path: Path) -> None:
    seen, calls, served = probe(tmp_path, "host")
    assert seen["gateway"] == 200 and seen["host_loopback"] == "connected"
    assert calls == 1 and served == 1  # the bare connection sent no request, but it got through
