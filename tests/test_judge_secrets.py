"""Keys never reach the run or the report through the judges.

A real run (the sample suite, the raster-paste baseline, real LibreOffice) is judged by two
litellm judges against a server on 127.0.0.1 that echoes the ``Authorization`` header it got:
in the message of a 400 reply and in every rationale of its answers. One judge's key comes from
the environment (``OPENAI_API_KEY``), the other's from ``--judge-opt api_key=``. Then every file
under the run directory and the HTML report is searched for both keys.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from refig.models import Judgment, JudgmentStatus
from refig.plugins import Registry
from refig.records import PluginKind
from refig.store import RunStore
from refig_toolkit_agent.httpserver import LocalServer, Request, Response
from refig_toolkit_testing.judge_server import answer_for

pytestmark = pytest.mark.slow


class EchoingJudge:
    """Answers a rubric call, echoing the caller's Authorization header; every third call a 400."""

    def __init__(self) -> None:
        self.calls = 0
        self.server = LocalServer(self.handle)

    def handle(self, request: Request) -> Response:
        self.calls += 1
        heard = request.headers.get("Authorization") or request.headers.get("authorization", "")
        if self.calls % 3 == 1:
            return Response.json({"error": {"message": f"bad request from {heard}",
                                            "type": "invalid_request_error"}}, status=400)
        body = request.json()
        schema = body["response_format"]["json_schema"]["schema"]
        answer: dict[str, Any] = answer_for(schema, 0.5)
        for value in answer.values():
            if isinstance(value, dict):
                value["rationale"] = f"you sent {heard}"
        return Response.json({
            "id": "echo", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": json.dumps(answer)}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
        })


def refig(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = [str(Path(sys.executable).parent / "refig"), *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=900,
                          check=False)


def test_echoed_keys_are_in_no_file_of_the_run_or_the_report(tmp_path: Path) -> None:
    registry = Registry.load(warn=lambda _: None)
    if "sample" not in registry.names(PluginKind.SUITE) or "html" not in registry.names(
            PluginKind.REPORTER):
        pytest.skip("the sample suite and the HTML reporter are not installed")
    env_key, opt_key = "sk-env-" + secrets.token_hex(12), "sk-opt-" + secrets.token_hex(12)
    env = {**os.environ, "OPENAI_API_KEY": env_key}
    suite, run = tmp_path / "suite", tmp_path / "run"
    for step in (("suite", "build", "sample", "--out", str(suite), "-n", "2", "-q"),
                 ("run", "--suite", str(suite), "--harness", "raster-paste", "--out", str(run),
                  "--workspace-root", str(tmp_path / "attempts"), "-q")):
        done = refig(*step, env=env)
        assert done.returncode == 0, done.stderr
    echo = EchoingJudge()
    with echo.server:
        url = echo.server.url + "/v1"
        judged = refig("evaluate", str(run), "-q", "--repeats", "2",
                       "--judge", "litellm:openai/echo-env", "--judge", "litellm:openai/echo-opt",
                       "--judge-opt", f"api_base={url}",
                       "--judge-opt", f"litellm:openai/echo-opt:api_key={opt_key}",
                       "--judge-opt", "input_cost_per_token=0",
                       "--judge-opt", "output_cost_per_token=0", env=env)
    assert judged.returncode in (0, 1), judged.stderr
    stored = RunStore.open(run).query(Judgment)
    assert len(stored) == 8 and echo.calls == 8
    assert {j.status for j in stored} == {JudgmentStatus.OK, JudgmentStatus.FAILED}
    assert any("[REDACTED:" in (j.error.message if j.error else "") for j in stored)
    assert any("[REDACTED:" in s.rationale for j in stored for s in j.scores)
    report = refig("report", str(run), "--html", str(tmp_path / "html"), "-q", env=env)
    assert report.returncode == 0, report.stderr
    scanned = 0
    for root in (run, tmp_path / "html"):
        for path in root.rglob("*"):
            if path.is_file():
                data = path.read_bytes()
                scanned += 1
                for key in (env_key, opt_key):
                    assert key.encode() not in data, (path, key[:7])
    assert scanned > 10
