"""The parts of ``refig run``: redaction, planning, the process-tree kill and the sandbox."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from refig.errors import UsageError
from refig.models import Asset, Attempt, AttemptStatus, ErrorInfo, Task
from refig.protocols import AttemptContext, Prompt
from refig.running.processes import MARKER, kill_tree, run_process
from refig.running.redact import Redactor, find_secrets
from refig.running.sandbox import SandboxPolicy, bwrap_works, run_command
from refig.running.scheduler import plan_attempts
from refig.running.workspace import AttemptDirs, attempt_env, sweep_stale

needs_bwrap = pytest.mark.skipif(not bwrap_works(), reason="bubblewrap is not usable here")
SHA = "0" * 64


def task(task_id: str) -> Task:
    return Task(id=task_id, family="figure-to-slide",
        inputs={"figure": Asset(path=f"assets/{task_id}.png", sha256=SHA)})


def attempt(task_id: str, try_index: int, ok: bool, retryable: bool = True) -> Attempt:
    error = None if ok else ErrorInfo(kind="timeout" if retryable else "no_output",
                                      retryable=retryable)
    return Attempt(task_id=task_id, config_id="m@h/w", try_index=try_index,
                   status=AttemptStatus.SUCCEEDED if ok else AttemptStatus.FAILED, error=error)


# --- redaction ----------------------------------------------------------------------------------


def test_find_secrets_picks_credentials_by_name_and_length() -> None:
    env = {"ANTHROPIC_API_KEY": "sk-ant-0123456789", "GITHUB_TOKEN": "ghp_abcdefgh",
           "PATH": "/usr/bin", "SHORT_TOKEN": "1", "HOME": "/root"}
    assert find_secrets(env) == {"ANTHROPIC_API_KEY": "sk-ant-0123456789",
                                 "GITHUB_TOKEN": "ghp_abcdefgh"}


def test_redactor_masks_text_and_compressed_zip_members() -> None:
    secret = "sk-test-SECRET-value-42"
    redactor = Redactor({"OPENAI_API_KEY": secret})
    assert redactor.bytes(f"key={secret}\n".encode()) == b"key=[REDACTED:OPENAI_API_KEY]\n"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("ppt/slides/slide1.xml", f"<a:t>{secret}</a:t>" * 50)
        archive.writestr("[Content_Types].xml", "<Types/>")
    data = buffer.getvalue()
    assert secret.encode() not in data  # compressed: a plain grep would miss it
    cleaned = redactor.bytes(data)
    with zipfile.ZipFile(io.BytesIO(cleaned)) as archive:
        assert archive.testzip() is None
        slide = archive.read("ppt/slides/slide1.xml")
    assert secret.encode() not in slide and b"[REDACTED:OPENAI_API_KEY]" in slide


def test_redactor_streams_large_files_and_catches_secrets_across_chunks(tmp_path) -> None:
    secret, other = b"sk-test-SECRET-value-42", b"ghp_token_abcdef"
    redactor = Redactor({"OPENAI_API_KEY": secret.decode(), "GITHUB_TOKEN": other.decode()})
    big = tmp_path / "transcript.jsonl"
    mib = 1 << 20
    with big.open("wb") as handle:  # 70 MiB: over the in-memory limit, so it is streamed
        for i in range(70):
            filler = b"x" * (mib - len(secret))
            # the secret straddles the chunk boundary on odd chunks, sits inside on even ones
            handle.write(filler[: mib - 10] + secret + filler[mib - 10:] if i % 2 else
                         filler[:100] + other + filler[100 + len(other):] + secret)
    size = big.stat().st_size
    assert redactor.file(big) is True
    with big.open("rb") as handle:
        previous = b""
        while chunk := handle.read(mib):
            window = previous + chunk
            assert secret not in window and other not in window
            previous = chunk[-64:]
    assert big.stat().st_size == size + 35 * (
        len(b"[REDACTED:OPENAI_API_KEY]") * 2 - len(secret) * 2
        + len(b"[REDACTED:GITHUB_TOKEN]") - len(other))
    assert redactor.file(big) is False  # nothing left: the file is left alone
    assert not list(tmp_path.glob(".*.redacting"))


# --- planning -----------------------------------------------------------------------------------


def test_plan_skips_done_and_final_failures_and_retries_retryable_ones() -> None:
    tasks = [task(f"t{i}") for i in range(5)]
    stored = [
        attempt("t0", 0, ok=True),
        attempt("t1", 0, ok=False, retryable=True),
        attempt("t2", 0, ok=False, retryable=False),
        attempt("t3", 0, ok=False), attempt("t3", 1, ok=False), attempt("t3", 2, ok=False),
    ]
    plain = plan_attempts(tasks, stored)
    assert [(p.task.id, p.try_index) for p in plain.todo] == [("t4", 0)]
    assert (plain.done, plain.failed_final, plain.failed_not_retried) == (1, 1, 2)
    retry = plan_attempts(tasks, stored, retry_failed=True, max_tries=3)
    assert [(p.task.id, p.try_index) for p in retry.todo] == [("t1", 1), ("t4", 0)]
    assert retry.exhausted == 1 and retry.skipped == 3
    redo = plan_attempts(tasks, stored, redo=True, max_tries=3)  # every task, past max_tries
    assert [(p.task.id, p.try_index) for p in redo.todo] == [
        ("t0", 1), ("t1", 1), ("t2", 1), ("t3", 3), ("t4", 0)]
    assert redo.skipped == 0


# --- processes ----------------------------------------------------------------------------------

ESCAPER = """
import os, subprocess, sys, time
token = sys.argv[1]
env = dict(os.environ, ESCAPE_TOKEN=token)
subprocess.Popen(["sleep", "300"], env=env)                       # a plain child
subprocess.Popen(["sleep", "301"], env=env, start_new_session=True)  # its own session
if os.fork() == 0:                                                # a double fork to init
    os.setsid()
    if os.fork() == 0:
        os.environ["ESCAPE_TOKEN"] = token
        os.execvp("sleep", ["sleep", "302"])
    os._exit(0)
print("started", flush=True)
time.sleep(300)
"""


def processes_with(token: str, settle: float = 60.0) -> list[int]:
    """Live processes carrying ``token``; waits up to ``settle`` seconds for killed ones to go
    (a bound, not a measurement: a loaded machine can take seconds to schedule a killed one)."""
    until = time.monotonic() + settle
    while True:
        found = _scan(token)
        if not found or time.monotonic() > until:
            return found
        time.sleep(0.1)


def _scan(token: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                environ = (entry / "environ").read_bytes()
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if f"ESCAPE_TOKEN={token}".encode() in environ and state != "Z":
                found.append(int(entry.name))
    return found


def test_deadline_ends_children_sessions_and_double_forks(tmp_path: Path) -> None:
    token = os.urandom(6).hex()
    # 10 s: time for the interpreter to start and fork on a loaded machine (at 3 s it could be
    # killed before printing "started" or before its double fork escaped)
    with (tmp_path / "out").open("wb") as log:
        result = run_process([sys.executable, "-c", ESCAPER, token], cwd=tmp_path,
                             env=dict(os.environ), deadline=time.monotonic() + 10,
                             marker=f"test-{token}", stdout=log)
    assert result.timed_out and result.exit_code == -9  # killed at the deadline, not after 300 s
    assert (tmp_path / "out").read_text().startswith("started")
    assert processes_with(token) == []


def test_kill_tree_by_marker_alone(tmp_path: Path) -> None:
    token = os.urandom(6).hex()
    env = {**os.environ, MARKER: f"mk-{token}.1", "ESCAPE_TOKEN": token}
    proc = subprocess.Popen(["sleep", "300"], env=env, start_new_session=True)
    try:
        assert processes_with(token, settle=0) == [proc.pid]
        assert kill_tree(marker=f"mk-{token}.") >= 1
        assert proc.wait(timeout=10) == -9
    finally:
        proc.kill()


FORKER = """
import os, time
for _ in range(30):
    if os.fork() == 0:
        time.sleep(300)
        os._exit(0)
print("started", flush=True)
time.sleep(300)
"""


def test_kill_tree_returns_once_what_it_killed_has_ended() -> None:
    """Thirty sleeping children: none runs when the call returns. Before it waited, SIGKILL was
    only sent, and some were still there in 10 of 10 trials (a fork bomb test saw one)."""
    token = os.urandom(6).hex()
    env = {**os.environ, "ESCAPE_TOKEN": token}
    proc = subprocess.Popen([sys.executable, "-c", FORKER], env=env, stdout=subprocess.PIPE,
                            start_new_session=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == b"started\n"
        assert len(_scan(token)) == 31
        assert kill_tree(proc.pid) == 31
        assert _scan(token) == []  # no settling: they had ended by the time it returned
    finally:
        proc.kill()
        proc.wait()


# --- workspaces and the sandbox -----------------------------------------------------------------


def context(dirs: AttemptDirs, policy: SandboxPolicy, seconds: float = 30) -> AttemptContext:
    source = dirs.workspace / "source.png"
    source.write_bytes(b"not really a png")
    return AttemptContext(
        task=task("t0"), workspace=dirs.workspace, source=source, prompt=Prompt("p"),
        model="none", deadline=time.monotonic() + seconds,
        env=attempt_env(dirs, "test.attempt"), log=dirs.log, attempt_id="test.attempt",
        home=dirs.home, outputs_dir=dirs.outputs, sandbox=policy,
    )


def test_attempt_environment_has_no_secrets_and_private_home(tmp_path: Path) -> None:
    dirs = AttemptDirs.create(tmp_path / "attempts", "a1")
    env = attempt_env(dirs, "a1", {"PATH": "/usr/bin", "OPENAI_API_KEY": "sk-xxxxxxxxxx",
                                   "REFIG_HOME": "/x", "REFIG_API_TOKEN": "tok-12345678"})
    assert "OPENAI_API_KEY" not in env and "REFIG_API_TOKEN" not in env
    assert env["HOME"] == str(dirs.home) and env["TMPDIR"] == str(dirs.tmp)
    assert env["REFIG_HOME"] == "/x" and env[MARKER] == "a1"
    assert env["PATH"].split(os.pathsep)[0] == str(Path(sys.executable).parent)


def test_sweep_removes_directories_of_dead_runs_only(tmp_path: Path) -> None:
    root = tmp_path / "attempts"
    mine = AttemptDirs.create(root, "live")
    dead = AttemptDirs.create(root, "dead")
    (dead.root / ".owner").write_text("999999999 12345\n")
    stranger = root / "not-an-attempt"
    stranger.mkdir()
    (stranger / ".owner").write_text("not-a-pid 12345\n")
    assert sweep_stale(root) == 1
    assert mine.root.exists() and stranger.exists() and not dead.root.exists()


@needs_bwrap
def test_bwrap_shows_only_the_workspace_and_home(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    (suite / "annotations").mkdir(parents=True)
    (suite / "annotations" / "t0.json").write_text('{"secret": "answer"}')
    run = tmp_path / "run"
    run.mkdir()
    (run / "refig.db").write_text("store")
    root = tmp_path / "attempts"
    other = AttemptDirs.create(root, "other")
    (other.workspace / "slide.pptx").write_text("someone else's work")
    dirs = AttemptDirs.create(root, "mine")
    policy = SandboxPolicy.create("bwrap", protected=(suite, run, root))
    probe = (
        "import os, sys, pathlib\n"
        f"for p in {[str(suite), str(run), str(other.workspace), str(dirs.outputs)]!r}:\n"
        "    print(p, os.path.exists(p))\n"
        "pathlib.Path('made.txt').write_text('ok')\n"
        "try:\n    open('/usr/made.txt', 'w').write('x'); print('WROTE /usr')\n"
        "except OSError: print('refused /usr')\n"
        "open(os.path.expanduser('~/../outside.txt'), 'w').write('x')\n"
        "import pptx; print('python-env ok')\n"
    )
    out = dirs.outputs / "probe.txt"
    result = run_command(context(dirs, policy), [sys.executable, "-c", probe], stdout=out,
                         network=False)
    text = out.read_text()
    assert result.exit_code == 0, dirs.log.read_text()
    for path in (suite, run, other.workspace, dirs.outputs):
        assert f"{path} False" in text
    assert "refused /usr" in text and "python-env ok" in text
    assert (dirs.workspace / "made.txt").read_text() == "ok"
    # Outside the workspace and home, writes land in the sandbox's throwaway root, not here.
    assert not (dirs.root / "outside.txt").exists()


@needs_bwrap
def test_an_import_path_holding_tmp_does_not_make_tmp_read_only(tmp_path: Path,
                                                                monkeypatch) -> None:
    # A script run from /tmp puts /tmp on sys.path; bound read-only, it hid the sandbox's own
    # /tmp, and R then died with "cannot create 'R_TempDir'".
    monkeypatch.setattr(sys, "path", ["/tmp", *sys.path])
    dirs = AttemptDirs.create(tmp_path / "attempts", "a")
    policy = SandboxPolicy.create("bwrap")
    out = dirs.outputs / "probe.txt"
    probe = "import tempfile; tempfile.mkdtemp(dir='/tmp'); print('tmp writable')"
    result = run_command(context(dirs, policy), [sys.executable, "-c", probe], stdout=out,
                         network=False)
    assert result.exit_code == 0 and "tmp writable" in out.read_text(), dirs.log.read_text()


@needs_bwrap
def test_sandbox_refuses_to_expose_protected_paths(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    dirs = AttemptDirs.create(tmp_path / "attempts", "a")
    policy = SandboxPolicy.create("bwrap", protected=(suite,))
    with pytest.raises(UsageError, match="refusing to expose"):
        run_command(context(dirs, policy), ["true"], readable=[suite])


@needs_bwrap
def test_pid_one_hands_the_commands_cpu_time_back_and_hides_the_interpreter(tmp_path: Path):
    """bwrap's own PID-1 reaper loses its children's CPU time (``RUSAGE_CHILDREN`` saw none of a
    sandboxed LibreOffice's); as the namespace's first process the command's time is counted.
    Without ``interpreter`` refig's environment is not in the sandbox."""
    import resource

    def children_cpu() -> float:
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    busy = ["/usr/bin/python3", "-c",
            "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.5: pass"]
    policy = SandboxPolicy.create("bwrap", network=False)
    spent = {}
    for pid_one in (False, True):
        before = children_cpu()
        argv = policy.wrap(busy, cwd=tmp_path, writable=[tmp_path], network=False,
                           interpreter=False, pid_one=pid_one)
        subprocess.run(argv, check=True, timeout=60)
        spent[pid_one] = children_cpu() - before
    assert spent[True] >= 0.45, spent
    assert spent[False] < 0.25, spent  # what bwrap's reaper loses (why pid_one exists)
    hidden = policy.wrap(["/bin/ls", sys.prefix], cwd=tmp_path, writable=[tmp_path],
                         interpreter=False)
    assert subprocess.run(hidden, capture_output=True, timeout=60).returncode != 0
