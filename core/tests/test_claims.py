"""Claims: two real processes on one run split its attempts; a dead owner's lease is taken over."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from PIL import Image
from refig.claims import Claims
from refig.models import Attempt
from refig.store import RunStore
from refig.suite import SuiteWriter

ATTEMPTS = 8

RACER = textwrap.dedent('''
    import sys, time
    from pathlib import Path
    from refig.builtins.executors import LocalExecutor
    from refig.plugins import Selection
    from refig.protocols import Harness, HarnessResult, Prompt
    from refig.records import Deliverable, ExecutorRecord, HarnessRecord, WorkflowRecord
    from refig.running.runner import RunRequest, execute
    from refig.suite import Suite

    suite, out, roots, log, name = map(Path, sys.argv[1:6])

    def other_started():
        return any(not line.startswith(f"{name} ") for line in log.read_text().splitlines())

    class Slow(Harness):
        def run(self, ctx):
            with log.open("a") as handle:
                handle.write(f"{name} {ctx.task.id}\\n")
            # Hold the attempt until the other racer has made one too: which process the
            # scheduler starts first must not decide the split (bounded, so a racer that never
            # gets an attempt fails the test's split check rather than hanging it)
            while not other_started() and time.monotonic() < give_up:
                time.sleep(0.05)
            time.sleep(0.2)
            (ctx.workspace / "slide.pptx").write_bytes(b"slide of " + ctx.task.id.encode())
            return HarnessResult(exit_code=0)

    class Plain:
        def prepare(self, workspace, task, harness):
            return Prompt(text="go", version="v1")

    def record(kind, **extra):
        return Selection(kind(name="slow", description="test", factory=lambda **_: extra["make"](),
                              **{k: v for k, v in extra.items() if k != "make"}), "tests")

    request = RunRequest(
        suite=Suite.load(suite), out=out,
        harness=record(HarnessRecord, make=Slow, needs_model=False),
        workflow=record(WorkflowRecord, make=Plain), jobs=2, timeout=60,
        executor=record(ExecutorRecord, make=LocalExecutor), workspace_root=roots,
        sandbox="none", deliverables=(Deliverable("slide", "slide.pptx", primary=True),))
    (out.parent / f"ready-{name}").write_text("")
    while not (out.parent / "go").exists():
        time.sleep(0.01)
    give_up = time.monotonic() + 120
    summary = execute(request, quiet=name.name != "b")  # b shows its progress on stderr
    print(summary.succeeded, summary.skipped_claimed)
''')


def _suite(root: Path) -> Path:
    writer = SuiteWriter(root, name="race", family="figure-to-slide", builder="test")
    for index in range(ATTEMPTS):
        buffer = io.BytesIO()
        Image.new("RGB", (16, 16), (index * 20, 0, 0)).save(buffer, "PNG")
        writer.add(f"t{index}", f"t{index}.png", buffer.getvalue())
    writer.finish()
    return root


def test_two_runs_of_one_configuration_split_the_attempts(tmp_path: Path) -> None:
    suite = _suite(tmp_path / "suite")
    script, log = tmp_path / "racer.py", tmp_path / "calls.log"
    script.write_text(RACER)
    racers = [subprocess.Popen([sys.executable, str(script), str(suite), str(tmp_path / "run"),
                                str(tmp_path / "attempts"), str(log), name],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
              for name in ("a", "b")]
    while not all((tmp_path / f"ready-{n}").exists() for n in "ab"):
        assert all(r.poll() is None for r in racers), [r.communicate() for r in racers]
        time.sleep(0.05)
    (tmp_path / "go").write_text("")
    outputs = [r.communicate(timeout=300) for r in racers]
    assert all(r.returncode == 0 for r in racers), outputs
    made = log.read_text().split("\n")[:-1]
    tasks = sorted(line.split()[1] for line in made)
    assert tasks == sorted(f"t{i}" for i in range(ATTEMPTS))  # each attempt made once
    by = {name: sum(line.startswith(name) for line in made) for name in "ab"}
    assert by["a"] > 0 and by["b"] > 0, by  # split between the two, not one doing all
    succeeded = sum(int(out.split()[0]) for out, _ in outputs)
    assert succeeded == ATTEMPTS
    # b's progress counts what a did as done elsewhere, rather than dropping it from the bar
    assert int(outputs[1][0].split()[1]) == by["a"]
    assert f"{by['a']} done elsewhere" in " ".join(outputs[1][1].split()), outputs[1][1]
    store = RunStore.open(tmp_path / "run")
    assert store.count(Attempt) == ATTEMPTS
    assert store.db.execute("SELECT count(*) FROM claims").fetchone()[0] == 0  # all released


HOLDER = textwrap.dedent('''
    import sys, time
    from refig.claims import Claims
    from refig.store import RunStore
    claims = Claims(RunStore.open(sys.argv[1]))
    assert claims.claim("attempt:x")
    print("held", flush=True)
    time.sleep(600)
''')


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_a_killed_owners_lease_is_taken_over(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run")
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(store.root)],
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    claims = Claims(store)
    assert claims.claim("attempt:x") is False  # its owner lives
    assert claims.claim("attempt:y") is True
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait()
    assert claims.claim("attempt:x") is True and claims.taken_over == 1
    claims.release("attempt:x")
    claims.release("attempt:y")
    assert store.db.execute("SELECT count(*) FROM claims").fetchone()[0] == 0


def test_an_expired_lease_of_another_host_is_taken_over(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run")
    store.db.execute('CREATE TABLE IF NOT EXISTS "claims" (item TEXT PRIMARY KEY, pid INTEGER '
                     "NOT NULL, started TEXT, host TEXT NOT NULL, token TEXT NOT NULL, expires "
                     "REAL NOT NULL) WITHOUT ROWID")
    for item, expires in (("fresh", time.time() + 600), ("expired", time.time() - 1)):
        store.db.execute("INSERT INTO claims VALUES (?, 1, 'x', 'elsewhere', 'tok', ?)",
                         (item, expires))
    claims = Claims(store)
    assert claims.claim("fresh") is False
    assert claims.claim("expired") is True
