"""The run store: keyed idempotent writes, concurrent writers, and a SIGKILL mid-write."""

from __future__ import annotations

import hashlib
import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from refig.cli import run
from refig.errors import RefigError, UsageError
from refig.models import Attempt, AttemptStatus, Configuration, ErrorInfo, Judgment, Usage
from refig.store import RunStore


def _attempt(task: str, try_index: int = 0, **fields) -> Attempt:
    return Attempt(
        task_id=task,
        config_id="none@cv/direct",
        try_index=try_index,
        status=fields.pop("status", AttemptStatus.SUCCEEDED),
        **fields,
    )


def test_put_is_keyed_and_idempotent(tmp_path):
    store = RunStore.create(tmp_path / "run")
    first = _attempt("t1", wall_seconds=1.5)
    assert store.put(first) is True
    assert store.put(_attempt("t1", wall_seconds=9.0)) is False  # same key: kept, not doubled
    assert store.put(_attempt("t1", try_index=1)) is True
    assert store.count(Attempt) == 2
    got = store.get(Attempt, task_id="t1", config_id="none@cv/direct", try_index=0)
    assert got == first
    assert store.put(_attempt("t1", wall_seconds=9.0), replace=True) is True
    again = store.get(Attempt, task_id="t1", config_id="none@cv/direct", try_index=0)
    assert again.wall_seconds == 9


def test_records_round_trip_with_nested_fields(tmp_path):
    store = RunStore.create(tmp_path / "run")
    failed = _attempt(
        "t2",
        status=AttemptStatus.FAILED,
        error=ErrorInfo(kind="timeout", message="deadline 60s", retryable=True),
        usage=Usage(input_tokens=10, output_tokens=3),
        outputs={"slide": "a" * 64},
    )
    store.put(failed)
    (back,) = store.query(Attempt, task_id="t2")
    assert back == failed
    assert back.error.retryable and back.usage.input_tokens == 10
    assert store.keys(Attempt) == {("t2", "none@cv/direct", 0)}


def test_configuration_id_is_stable_and_checked(tmp_path):
    config = Configuration(model="gpt-5.5", harness="codex", workflow="direct",
                           options={"effort": "xhigh", "a": "1"})
    assert config.id == "gpt-5.5@codex/direct[a=1,effort=xhigh]"
    store = RunStore.create(tmp_path / "run")
    store.put(config)
    assert store.get(Configuration, id=config.id) == config
    with pytest.raises(ValueError, match="does not match"):
        Configuration(model="m", harness="h", workflow="w", id="other")


def test_query_rejects_non_key_filters(tmp_path):
    store = RunStore.create(tmp_path / "run")
    with pytest.raises(KeyError, match="can be filtered by"):
        store.query(Attempt, status="failed")


def test_objects_are_content_addressed_and_atomic(tmp_path):
    store = RunStore.create(tmp_path / "run")
    sha = store.objects.put_bytes(b"slide bytes")
    assert store.objects.put_bytes(b"slide bytes") == sha
    source = tmp_path / "x.bin"
    source.write_bytes(b"slide bytes")
    assert store.objects.put_file(source) == sha
    assert store.objects.read_bytes(sha) == b"slide bytes"
    assert store.objects.path(sha).parent.name == sha[:2]
    assert not list(store.objects.root.rglob(".tmp-*"))


def test_open_missing_run_is_a_clear_usage_error(tmp_path):
    with pytest.raises(UsageError, match="not a refig run"):
        RunStore.open(tmp_path / "nowhere")


def test_a_file_that_is_not_a_store_is_named_not_a_traceback(tmp_path, capsys):
    (tmp_path / "refig.db").write_bytes(b"this is not SQLite" * 100)
    with pytest.raises(RefigError, match="cannot open the run store") as info:
        RunStore.open(tmp_path)
    assert info.value.path == tmp_path / "refig.db"
    assert run(["export", str(tmp_path), "-t", "attempts"]) == 1
    assert "file is not a database" in capsys.readouterr().err


def test_export_jsonl_and_csv(tmp_path):
    store = RunStore.create(tmp_path / "run")
    store.put_many([_attempt("a"), _attempt("b", usage=Usage(input_tokens=5))])
    buffer = io.StringIO()
    assert store.export("attempts", "jsonl", buffer) == 2
    rows = [json.loads(line) for line in buffer.getvalue().splitlines()]
    assert [r["task_id"] for r in rows] == ["a", "b"]
    buffer = io.StringIO()
    assert store.export("attempts", "csv", buffer) == 2
    header, _first, second = buffer.getvalue().splitlines()[:3]
    assert header.startswith("task_id,config_id,try_index,status")
    assert '""input_tokens"": 5' in second
    with pytest.raises(UsageError, match="unknown table"):
        store.export("nope", "jsonl", io.StringIO())


def test_export_command_checks_names_before_writing(tmp_path, capsys):
    store = RunStore.create(tmp_path / "run")
    store.put(_attempt("a"))
    target = tmp_path / "attempts.csv"
    assert run(["export", str(store.root), "-t", "attempts", "-f", "xlsx", "-o", str(target)]) == 2
    assert "formats: jsonl, csv" in capsys.readouterr().err
    assert not target.exists()
    assert run(["export", str(store.root), "-t", "attempts", "-f", "csv", "-o", str(target)]) == 0
    assert target.read_text().splitlines()[1].startswith("a,none@cv/direct,0,succeeded")
    missing = tmp_path / "no-such-folder" / "out.csv"
    assert run(["export", str(store.root), "-t", "attempts", "-o", str(missing)]) == 1
    assert "no-such-folder" in capsys.readouterr().err


WRITER = textwrap.dedent(
    """
    import sys, time
    from refig.models import Judgment, JudgmentStatus, AxisScore
    from refig.store import RunStore

    store = RunStore.create(sys.argv[1])
    done = store.keys(Judgment)
    total, start, step = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    for i in range(start, total, step):
        key = ("%064x" % i, "judge", "r" * 64, "", 0)
        if key in done:
            continue
        blob = store.objects.put_bytes(("render %d" % i).encode() * 2000)
        store.put(Judgment(
            artifact_sha256=key[0], judge="judge", judge_key="judge", rubric_sha256=key[2],
            rubric_version="1", repeat=0, status=JudgmentStatus.OK, total=float(i % 100),
            scores=(AxisScore(axis="text", score=float(i % 20), max_score=20,
                              rationale=blob),),
        ))
        print(i, flush=True)
        time.sleep(float(sys.argv[5]))
    """
)


def _writer(tmp_path: Path, run: Path, *args: str) -> subprocess.Popen[str]:
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    return subprocess.Popen(
        [sys.executable, str(script), str(run), *args],
        stdout=subprocess.PIPE,
        text=True,
    )


def _check_integrity(run: Path, total: int) -> list[Judgment]:
    conn = sqlite3.connect(run / "refig.db")
    assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    conn.close()
    store = RunStore.open(run)
    records = store.query(Judgment)  # every stored row parses and validates
    keys = [r.artifact_sha256 for r in records]
    assert len(keys) == len(set(keys)) <= total
    for record in records:
        i = int(record.artifact_sha256, 16)
        assert record.total == float(i % 100)
        assert store.objects.read_bytes(record.scores[0].rationale) == (
            f"render {i}".encode() * 2000
        )
    for path in (run / "objects").rglob("*"):  # a killed write leaves at most a .tmp- file
        if path.is_file() and not path.name.startswith(".tmp-"):
            assert hashlib.sha256(path.read_bytes()).hexdigest() == path.name
    return records


@pytest.mark.slow
def test_sigkill_mid_write_then_resume_loses_and_repeats_nothing(tmp_path):
    run, total = tmp_path / "run", 400
    proc = _writer(tmp_path, run, str(total), "0", "1", "0.002")
    seen = 0
    while seen < 60:  # let it get well into the work, then kill it without warning
        assert proc.stdout.readline()
        seen += 1
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    before = _check_integrity(run, total)
    assert 60 <= len(before) < total
    resumed = _writer(tmp_path, run, str(total), "0", "1", "0")
    printed = [int(line) for line in resumed.communicate()[0].split()]
    assert resumed.returncode == 0
    assert set(printed).isdisjoint(int(r.artifact_sha256, 16) for r in before)
    after = _check_integrity(run, total)
    assert len(after) == total


@pytest.mark.slow
def test_concurrent_writers_share_one_store(tmp_path):
    run, total = tmp_path / "run", 300
    RunStore.create(run)
    procs = [_writer(tmp_path, run, str(total), str(k), "3", "0") for k in range(3)]
    for proc in procs:
        proc.communicate(timeout=300)  # a guard against a deadlock, not a speed check
        assert proc.returncode == 0
    assert len(_check_integrity(run, total)) == total


def test_a_readonly_store_reads_and_never_writes(tmp_path: Path) -> None:
    writer = RunStore.create(tmp_path / "run")
    config = Configuration(model="m", harness="h", workflow="w")
    writer.put(config)
    before = writer.fingerprint()
    reader = RunStore.open(tmp_path / "run", readonly=True)
    assert [c.id for c in reader.iter(Configuration)] == [config.id]
    assert reader.fingerprint() == before
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        reader.put(Configuration(model="m2", harness="h", workflow="w"))
    writer.put(Configuration(model="m3", harness="h", workflow="w"))
    assert reader.fingerprint() != before  # the reader sees what another process writes
    assert reader.count(Configuration) == 2


def test_a_readonly_open_refuses_a_directory_without_a_run(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="not a refig run"):
        RunStore.open(tmp_path, readonly=True)
    assert not (tmp_path / "refig.db").exists()
