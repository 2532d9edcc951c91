"""A run store is marked as refig's: empty, truncated and foreign databases are refused."""

from __future__ import annotations

import sqlite3

import pytest
from refig.cli import run
from refig.errors import RefigError
from refig.models import Attempt, AttemptStatus
from refig.store import RunStore
from refig.store_marks import APPLICATION_ID, MARKER, StoreDamaged


def _run_with_an_object(root):
    store = RunStore.create(root)
    store.objects.put_bytes(b"a slide")
    store.put(Attempt(task_id="t", config_id="none@cv/direct", try_index=0,
                      status=AttemptStatus.SUCCEEDED))
    store.close()
    return store


def test_a_new_store_is_marked(tmp_path):
    store = _run_with_an_object(tmp_path / "run")
    conn = sqlite3.connect(store.db_path)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    conn.close()
    assert (store.root / MARKER).is_file()


@pytest.mark.parametrize("command", [["export", "{run}", "-t", "attempts"], ["report", "{run}"],
                                     ["evaluate", "{run}", "-q"]])
def test_a_truncated_database_is_damage_not_a_new_run(tmp_path, capsys, command):
    store = _run_with_an_object(tmp_path / "run")
    store.db_path.write_bytes(b"")  # truncate -s 0 refig.db
    argv = [part.replace("{run}", str(store.root)) for part in command]
    assert run(argv) == 1
    err = capsys.readouterr().err
    assert "damaged, not new" in err and "refig.db" in err and "fix:" in err
    assert store.db_path.stat().st_size == 0  # nothing was written into it
    with pytest.raises(StoreDamaged):
        RunStore.create(store.root)  # nor does `refig run --out` start over in it


def test_a_deleted_database_next_to_objects_is_damage(tmp_path):
    store = _run_with_an_object(tmp_path / "run")
    store.db_path.unlink()
    for suffix in ("-wal", "-shm"):
        store.db_path.with_name(store.db_path.name + suffix).unlink(missing_ok=True)
    with pytest.raises(StoreDamaged, match="is missing"):
        RunStore.open(store.root)
    with pytest.raises(StoreDamaged):
        RunStore.create(store.root)


@pytest.mark.parametrize("command", [["export", "{run}", "-t", "attempts"], ["report", "{run}"],
                                     ["evaluate", "{run}", "-q"]])
def test_another_programs_sqlite_file_is_refused_untouched(tmp_path, capsys, command):
    root = tmp_path / "other"
    root.mkdir()
    db = root / "refig.db"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE contacts (name TEXT)")
    conn.commit()
    conn.close()
    before = db.read_bytes()
    argv = [part.replace("{run}", str(root)) for part in command]
    assert run(argv) == 1
    err = capsys.readouterr().err
    assert "another program's SQLite database" in err and str(db) in err
    assert db.read_bytes() == before
    with pytest.raises(RefigError, match="another program"):
        RunStore.create(root)


def test_an_unmarked_refig_database_is_adopted(tmp_path):
    store = _run_with_an_object(tmp_path / "run")
    conn = sqlite3.connect(store.db_path)
    conn.execute("PRAGMA application_id = 0")
    conn.commit()
    conn.close()
    (store.root / MARKER).unlink()
    again = RunStore.open(store.root)
    assert again.count(Attempt) == 1
    assert again.db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID


def test_an_empty_directory_is_still_a_new_run(tmp_path):
    (tmp_path / "fresh").mkdir()
    (tmp_path / "fresh" / "refig.db").write_bytes(b"")
    store = RunStore.create(tmp_path / "fresh")
    assert store.count(Attempt) == 0


@pytest.mark.parametrize("command", [["report", "{run}"], ["view", "{run}"],
                                     ["export", "{run}", "-t", "attempts"]])
def test_a_malformed_database_is_damage_named_without_a_traceback(tmp_path, capsys, command):
    store = _run_with_an_object(tmp_path / "run")
    data = bytearray(store.db_path.read_bytes())
    for at in range(100, len(data), 997):  # scribble over every page past the header
        data[at] = 0xAB
    store.db_path.write_bytes(bytes(data))
    argv = [part.replace("{run}", str(store.root)) for part in command]
    assert run(argv) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert "Traceback" not in err and "❱" not in err
    assert "the run store's database is damaged" in err and "malformed" in err
    assert "refig.db" in err and "fix: restore refig.db from a backup" in err


def test_damage_past_the_opening_checks_is_named_without_a_traceback(tmp_path, capsys):
    store = _run_with_an_object(tmp_path / "run")
    data = bytearray(store.db_path.read_bytes())
    page = 4096  # the schema page stays whole: the damage shows only when rows are read
    for at in range(2 * page + 50, len(data), 61):
        data[at] = 0xAB
    store.db_path.write_bytes(bytes(data))
    assert run(["export", str(store.root), "-t", "attempts"]) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert "Traceback" not in err and "❱" not in err
    assert "a run store's database could not be read" in err
    assert "PRAGMA integrity_check" in err


def test_a_path_that_is_no_run_says_whether_it_is_missing_a_file_or_a_folder(tmp_path, capsys):
    (tmp_path / "folder").mkdir()
    (tmp_path / "file.pptx").write_bytes(b"PK")
    for name, why in (("nowhere", "it does not exist"),
                      ("file.pptx", "it is a file, not a run directory"),
                      ("folder", "no refig.db")):
        assert run(["export", str(tmp_path / name), "-t", "attempts"]) == 2
        said = " ".join(capsys.readouterr().err.split())
        assert f"is not a refig run ({why})" in said, said
    assert not (tmp_path / "nowhere").exists()
