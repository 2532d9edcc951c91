"""A ``refig run`` killed with SIGKILL mid-way, then resumed: every attempt exactly once."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from refig.models import Attempt, AttemptStatus
from refig.store import RunStore

TASKS = 8


def recorded(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=30) as conn:
            return conn.execute("SELECT count(*) FROM attempts").fetchone()[0]
    except sqlite3.OperationalError:  # the table is not made yet
        return 0


def test_sigkill_then_resume_records_every_attempt_exactly_once(
        suite_maker: Callable[[Path, int], Path],
        refig: Callable[..., subprocess.CompletedProcess[str]], tmp_path: Path) -> None:
    suite = suite_maker(tmp_path / "suite", TASKS)
    out, root = tmp_path / "run", tmp_path / "attempts"
    args = ["run", "--suite", str(suite), "--harness", "raster-paste", "--out", str(out),
            "-j", "2", "--workspace-root", str(root)]
    proc = subprocess.Popen([str(Path(sys.executable).parent / "refig"), *args, "-q"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=dict(os.environ))
    try:
        deadline = time.monotonic() + 300
        while recorded(out / "refig.db") < 2 and time.monotonic() < deadline:
            assert proc.poll() is None, "the run ended before it could be killed"
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    before = recorded(out / "refig.db")
    assert 2 <= before < TASKS, "kill the run mid-way: make the suite larger if this fails"
    store = RunStore.open(out)
    for attempt in store.query(Attempt):  # whole records only, with every output in place
        assert all(store.objects.exists(sha) for sha in attempt.outputs.values())
    assert any(root.iterdir()), "a killed run leaves its in-flight workspaces behind"

    done = refig(*args, "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["skipped_done"] == before
    assert summary["planned"] == TASKS - before and summary["succeeded"] == TASKS - before
    attempts = store.query(Attempt)
    assert sorted((a.task_id, a.try_index) for a in attempts) == [
        (f"fig-{i}", 0) for i in range(TASKS)]
    assert {a.status for a in attempts} == {AttemptStatus.SUCCEEDED}
    assert not any(root.iterdir()), "the resumed run sweeps what the killed one left"
    again = json.loads(refig(*args, "--json").stdout)
    assert again["planned"] == 0 and again["skipped_done"] == TASKS
