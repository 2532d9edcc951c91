"""Attempts through the real driver: deadlines, secrets, hostile outputs, resume and retries.

The harnesses here are test-only, registered in-process as plugin records (a registry built in
the test, not installed plugins); everything else is real: workspaces, bubblewrap when it works,
subprocesses, the thread-pool executor and the SQLite run store.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from refig.builtins.executors import LocalExecutor
from refig.models import Attempt, AttemptStatus, ErrorInfo, Output, Task
from refig.plugins import Selection
from refig.protocols import AttemptContext, Harness, HarnessResult, Prompt
from refig.records import Deliverable, ExecutorRecord, HarnessRecord, WorkflowRecord
from refig.running.runner import RunRequest, execute
from refig.running.sandbox import bwrap_works, run_command
from refig.store import RunStore
from refig.suite import Suite, SuiteError, SuiteWriter

SLIDE_FILE = "slide.pptx"
#: The suite's tasks are figure-to-slide's: the agent leaves a slide, perhaps its program.
DELIVERABLES = (Deliverable("slide", SLIDE_FILE, primary=True),
                Deliverable("program", "build_slide.py", required=False))

MODES = ["bwrap", "none"] if bwrap_works() else ["none"]


def png(color: str) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (64, 32), color).save(buffer, "PNG")
    return buffer.getvalue()


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    writer = SuiteWriter(tmp_path / "suite", name="tiny", family="figure-to-slide", builder="test")
    for index, color in enumerate(("red", "green", "blue")):
        writer.add(f"t{index}", f"t{index}.png", png(color), annotation={"nodes": [index]})
    writer.finish()
    return tmp_path / "suite"


class PlainWorkflow:
    def prepare(self, workspace: Path, task: Task, harness: str) -> Prompt:
        return Prompt(text=f"rebuild {task.id}", version="plain.v1")


class FunctionHarness(Harness):
    """Calls ``body(ctx)``; the tests' harnesses are functions."""

    def __init__(self, body: Callable[[AttemptContext], HarnessResult]):
        self.body = body

    def run(self, ctx: AttemptContext) -> HarnessResult:
        return self.body(ctx)


def request(tmp_path: Path, suite: Path, body: Callable[[AttemptContext], HarnessResult],
            **overrides: Any) -> RunRequest:
    harness = HarnessRecord(name="test-harness", description="test",
                            factory=lambda **_: FunctionHarness(body), needs_model=False)
    workflow = WorkflowRecord(name="plain", description="test", factory=lambda **_: PlainWorkflow())
    executor = ExecutorRecord(name="local", description="test", factory=lambda **_: LocalExecutor())
    fields: dict[str, Any] = dict(
        suite=Suite.load(suite), out=tmp_path / "run", harness=Selection(harness, "tests"),
        workflow=Selection(workflow, "tests"), executor=Selection(executor, "refig"),
        # the stand-in harness counts as an agent: where bwrap cannot work, go without it on
        # purpose (auto would refuse it)
        jobs=2, timeout=60, workspace_root=tmp_path / "attempts", sandbox=MODES[0],
        deliverables=DELIVERABLES,
    )
    fields.update(overrides)
    return RunRequest(**fields)


def write_slide(ctx: AttemptContext) -> HarnessResult:
    (ctx.workspace / SLIDE_FILE).write_bytes(b"PK\x05\x06" + b"\0" * 18)
    return HarnessResult(exit_code=0, turns=1)


def test_run_records_suite_attempts_and_skips_them_on_rerun(tmp_path: Path, suite: Path) -> None:
    summary = execute(request(tmp_path, suite, write_slide), quiet=True)
    assert (summary.planned, summary.succeeded, summary.failed) == (3, 3, 0)
    store = RunStore.open(tmp_path / "run")
    assert store.suite() is not None and store.suite().name == "tiny"
    tasks = store.query(Task)
    assert [t.id for t in tasks] == ["t0", "t1", "t2"]
    for t in tasks:  # sources and annotations are read from the store from now on
        assert all(store.objects.exists(asset.sha256) for asset in t.inputs.values())
        assert set(t.inputs) == {"figure", "annotation"}
    attempts = store.query(Attempt)
    assert {a.status for a in attempts} == {AttemptStatus.SUCCEEDED}
    first = attempts[0]
    assert first.prompt_version == "plain.v1" and first.prompt_sha256 and first.turns == 1
    assert set(first.outputs) == {"slide", Output.LOG}
    log = store.objects.read_bytes(first.outputs[Output.LOG]).decode()
    assert "succeeded" in log and first.task_id in log
    again = execute(request(tmp_path, suite, write_slide), quiet=True)
    assert (again.planned, again.skipped_done) == (0, 3)
    assert store.count(Attempt) == 3
    assert not any((tmp_path / "attempts").iterdir())  # workspaces are removed


def test_retry_failed_runs_a_new_try_of_retryable_failures_only(
        tmp_path: Path, suite: Path) -> None:
    def flaky(ctx: AttemptContext) -> HarnessResult:
        if ctx.task.id == "t0":
            return HarnessResult(exit_code=1, error=ErrorInfo(kind="rate_limited",
                                                              retryable=True))
        if ctx.task.id == "t1":
            return HarnessResult(exit_code=0)  # no slide: a final, non-retryable failure
        return write_slide(ctx)

    first = execute(request(tmp_path, suite, flaky), quiet=True)
    assert first.errors == {"rate_limited": 1, "no_output": 1}
    plain = execute(request(tmp_path, suite, write_slide), quiet=True)
    assert plain.planned == 0 and plain.skipped_failed == 2
    retried = execute(request(tmp_path, suite, write_slide, retry_failed=True), quiet=True)
    assert retried.planned == 1 and retried.succeeded == 1
    store = RunStore.open(tmp_path / "run")
    assert [(a.task_id, a.try_index, a.status.value) for a in store.query(Attempt)] == [
        ("t0", 0, "failed"), ("t0", 1, "succeeded"), ("t1", 0, "failed"), ("t2", 0, "succeeded")]


# --- deadlines ----------------------------------------------------------------------------------

SPAWNER = """
import os, subprocess, sys, time
env = dict(os.environ, HANG_TOKEN=sys.argv[1])
subprocess.Popen(["sleep", "300"], env=env, start_new_session=True)
if os.fork() == 0:
    os.setsid()
    os.execvpe("sleep", ["sleep", "301"], env)
time.sleep(300)
"""


def survivors(token: str) -> list[int]:
    """Live processes carrying ``token``, after up to 60 s for killed ones to go (a bound, not a
    measurement: a loaded machine can take seconds to schedule a killed process)."""
    until = time.monotonic() + 60
    while True:
        alive = []
        for entry in Path("/proc").iterdir():
            try:
                if (entry.name.isdigit()
                        and f"HANG_TOKEN={token}".encode() in (entry / "environ").read_bytes()
                        and (entry / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"):
                    alive.append(int(entry.name))
            except OSError:
                continue
        if not alive or time.monotonic() > until:
            return alive
        time.sleep(0.1)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("through_helper", [True, False], ids=["run_command", "own-popen"])
def test_hung_harness_is_ended_at_its_deadline(
        tmp_path: Path, suite: Path, mode: str, through_helper: bool) -> None:
    token = os.urandom(6).hex()

    def hang(ctx: AttemptContext) -> HarnessResult:
        argv = [sys.executable, "-c", SPAWNER, token]
        if through_helper:
            done = run_command(ctx, argv)
            return HarnessResult(exit_code=done.exit_code, error=ErrorInfo(
                kind="timeout", retryable=True) if done.timed_out else None)
        # An adapter that ignores the helper and the deadline: refig's watchdog ends its tree.
        proc = subprocess.Popen(argv, env=dict(ctx.env), cwd=ctx.workspace)
        return HarnessResult(exit_code=proc.wait())

    summary = execute(request(tmp_path, suite, hang, timeout=2.0, sandbox=mode, jobs=3,
                              limit=2), quiet=True)
    assert summary.errors == {"timeout": 2}
    for attempt in RunStore.open(tmp_path / "run").query(Attempt):
        assert attempt.error is not None and attempt.error.retryable
        # Ended by the 2 s deadline (and the 15 s grace at most), not by the 300 s sleeps.
        assert 2.0 <= attempt.wall_seconds < 120
        assert attempt.sandbox == mode
    assert survivors(token) == []


# --- secrets and hostile outputs ----------------------------------------------------------------


def test_planted_key_is_in_no_file_under_the_run_or_the_workspace(
        tmp_path: Path, suite: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key = "sk-ant-api03-" + os.urandom(12).hex()
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)

    def careless(ctx: AttemptContext) -> HarnessResult:
        assert ctx.secrets["ANTHROPIC_API_KEY"] == key
        assert key not in json.dumps(dict(ctx.env))  # refig never hands it to the agent itself
        # A careless adapter passes the key on; the agent spills it everywhere it can.
        script = (
            "import os, zipfile\n"
            "k = os.environ['LEAKED']\n"
            "print('env:', k)\n"
            "open('build_slide.py', 'w').write(f'KEY = {k!r}\\n')\n"
            "open('notes.txt', 'w').write(k)\n"
            "with zipfile.ZipFile('slide.pptx', 'w', zipfile.ZIP_DEFLATED) as z:\n"
            "    z.writestr('ppt/slides/slide1.xml', '<a:t>' + k * 20 + '</a:t>')\n"
        )
        transcript = ctx.outputs_dir / "transcript.jsonl"
        done = run_command(ctx, [sys.executable, "-c", script], stdout=transcript,
                           env={**ctx.env, "LEAKED": ctx.secrets["ANTHROPIC_API_KEY"]})
        with ctx.log.open("a") as log:
            log.write(f"adapter log: {key}\n")
        return HarnessResult(exit_code=done.exit_code,
                             outputs={"transcript": transcript, "calls": transcript})

    summary = execute(request(tmp_path, suite, careless, keep_workspaces=True), quiet=True)
    assert summary.succeeded == 3 and len(summary.kept_workspaces) == 3
    needle = key.encode()
    scanned = 0
    for root in (tmp_path / "run", tmp_path / "attempts"):
        for path in root.rglob("*"):
            if not path.is_file():
                continue
            data = path.read_bytes()
            scanned += 1
            assert needle not in data, path
            if data[:4] == b"PK\x03\x04":
                with zipfile.ZipFile(path) as archive:
                    for name in archive.namelist():
                        assert needle not in archive.read(name), (path, name)
    assert scanned > 10
    store = RunStore.open(tmp_path / "run")
    attempt = store.query(Attempt)[0]
    transcript = store.objects.read_bytes(attempt.outputs[Output.TRANSCRIPT])
    assert b"[REDACTED:ANTHROPIC_API_KEY]" in transcript


def test_outputs_that_point_outside_the_attempt_are_not_read(tmp_path: Path, suite: Path) -> None:
    secret_file = tmp_path / "private.txt"
    secret_file.write_text("private data")

    def sneaky(ctx: AttemptContext) -> HarnessResult:
        (ctx.workspace / SLIDE_FILE).symlink_to(secret_file)
        return HarnessResult(exit_code=0, outputs={"program": secret_file})

    summary = execute(request(tmp_path, suite, sneaky, limit=1), quiet=True)
    assert summary.errors == {"output_refused": 1}
    store = RunStore.open(tmp_path / "run")
    attempt = store.query(Attempt)[0]
    assert set(attempt.outputs) == {Output.LOG}
    assert b"private data" not in store.objects.read_bytes(attempt.outputs[Output.LOG])


def test_an_output_under_a_role_the_family_does_not_deliver_fails_the_attempt(
        tmp_path: Path, suite: Path) -> None:
    def stray(ctx: AttemptContext) -> HarnessResult:
        deck = ctx.workspace / "edited.pptx"
        deck.write_bytes(b"PK\x05\x06" + b"\0" * 18)
        return HarnessResult(exit_code=0, outputs={"deck": deck})

    summary = execute(request(tmp_path, suite, stray, limit=1), quiet=True)
    assert summary.errors == {"harness_error": 1}
    [attempt] = RunStore.open(tmp_path / "run").query(Attempt)
    assert attempt.error is not None and set(attempt.outputs) == {Output.LOG}
    assert attempt.error.message == (
        "the harness named output 'deck', which the figure-to-slide family does not deliver: "
        "its roles are slide, program (and refig's transcript, calls)")


def test_a_raising_harness_is_a_typed_failure(tmp_path: Path, suite: Path) -> None:
    def broken(ctx: AttemptContext) -> HarnessResult:
        raise RuntimeError("adapter bug")

    summary = execute(request(tmp_path, suite, broken, limit=1), quiet=True)
    assert summary.errors == {"harness_error": 1}
    error = RunStore.open(tmp_path / "run").query(Attempt)[0].error
    assert error is not None and "adapter bug" in error.message and error.retryable


def test_ctrl_c_ends_running_attempts_promptly_and_records_none(
        tmp_path: Path, suite: Path) -> None:
    import signal

    token = os.urandom(6).hex()

    def hang(ctx: AttemptContext) -> HarnessResult:
        done = run_command(ctx, [sys.executable, "-c", SPAWNER, token])
        return HarnessResult(exit_code=done.exit_code)

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 2.0)  # Ctrl-C while attempts run (main thread waits)
    started = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            execute(request(tmp_path, suite, hang, timeout=120, jobs=2), quiet=True)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert time.monotonic() - started < 100  # well before the 120 s deadline would end them
    assert survivors(token) == []
    assert RunStore.open(tmp_path / "run").count(Attempt) == 0


def test_an_annotation_path_leaving_the_suite_is_refused(tmp_path: Path, suite: Path) -> None:
    private = tmp_path / "private.json"
    private.write_text('{"answer": "not for the run store"}')
    lines = (suite / "tasks.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    first["inputs"]["annotation"] = {"path": "../private.json", "visible": False,
                                     "sha256": hashlib.sha256(private.read_bytes()).hexdigest()}
    (suite / "tasks.jsonl").write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    with pytest.raises(SuiteError, match="leaves the suite directory"):
        execute(request(tmp_path, suite, write_slide), quiet=True)
    objects = tmp_path / "run" / "objects"
    assert not any(p.read_bytes() == private.read_bytes() for p in objects.rglob("*")
                   if p.is_file())
