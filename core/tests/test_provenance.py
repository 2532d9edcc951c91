"""The manifest's digests, the lock's comparison, and a store older than the manifest's tables
(the end-to-end behaviour is tests/test_provenance.py)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from refig.errors import UsageError
from refig.models import Deviation
from refig.probing import files_digest
from refig.provenance import (
    compare,
    environment_digest,
    environments,
    plan_deviations,
    read_lock,
    record_environment,
    write_lock,
)
from refig.store import RunStore


class Part:
    def __init__(self, **entries: str):
        self.entries = entries

    def environment(self) -> dict[str, str]:
        return self.entries


def test_the_environment_digest_is_stable_and_follows_every_entry() -> None:
    one = environment_digest({"renderer.x": Part(version="1", fonts="3")})
    assert one == environment_digest({"renderer.x": Part(fonts="3", version="1")})
    assert one != environment_digest({"renderer.x": Part(version="1", fonts="4")})
    assert one != environment_digest({"renderer.y": Part(version="1", fonts="3")})
    assert len(one) == 64


def test_the_files_digest_follows_their_bytes_not_their_order(tmp_path: Path) -> None:
    a, b = tmp_path / "a.ttf", tmp_path / "b.ttf"
    a.write_bytes(b"font a")
    b.write_bytes(b"font b")
    digest = files_digest([a, b])
    assert digest == files_digest([b, a, tmp_path / "absent.ttf"])
    b.write_bytes(b"font B")
    assert files_digest([a, b]) != digest


def test_an_environment_is_stored_once_per_digest_and_host(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run")
    assert record_environment(store, "render", {"renderer.x.version": "1"})
    assert not record_environment(store, "render", {"renderer.x.version": "1"})
    assert record_environment(store, "render", {"renderer.x.version": "2"})
    assert [e.entries["renderer.x.version"] for e in environments(store)] == ["1", "2"]


def test_compare_lists_changed_missing_and_added_entries_under_the_prefixes() -> None:
    locked = {"rubric": "a", "judge.x": "k", "metric.m": "1", "stats.seed": "0"}
    used = {"rubric": "b", "judge.y": "k", "metric.m": "1", "stats.seed": "9"}
    found = compare(locked, used, "evaluate", ("judge.", "rubric", "metric."))
    assert [(d.entry, d.locked, d.used) for d in found] == [
        ("judge.x", "k", None), ("judge.y", None, "k"), ("rubric", "a", "b")]


def test_a_lock_is_kept_and_its_deviations_listed(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run")
    assert plan_deviations(store, {"seed": 0}) == []  # no lock, no deviation
    write_lock(store, {"rubric": "a", "stats.seed": "0"})
    with pytest.raises(UsageError, match="--replace"):
        write_lock(store, {"rubric": "b"})
    store.put(Deviation(entry="rubric", locked="a", used="b", stage="evaluate"))
    found = plan_deviations(store, {"seed": 1})
    assert [(d.entry, d.used, d.stage) for d in found] == [
        ("rubric", "b", "evaluate"), ("stats.seed", "1", "report")]
    lock = write_lock(store, {"rubric": "b"}, replace=True)
    assert read_lock(store) == lock


def test_a_store_written_before_the_manifest_reads_as_having_none(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run")
    write_lock(store, {"rubric": "a"})
    store.close()
    with sqlite3.connect(tmp_path / "run" / "refig.db") as db:
        db.execute("DROP TABLE environments")
        db.execute("DROP TABLE deviations")
    old = RunStore.open(tmp_path / "run", readonly=True)
    assert environments(old) == [] and plan_deviations(old, {}) == []
    assert environments(RunStore.open(tmp_path / "run")) == []  # a writable open makes them
