"""Stable environment entries: a file's digest is read again only when its size or mtime
changes, and a probe that fails is retried once, then an error naming the command."""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

import pytest
from refig.errors import RefigError
from refig.probing import MEMO, files_digest, probe


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("REFIG_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_a_files_digest_is_remembered_by_path_size_and_mtime(tmp_path: Path, cache: Path) -> None:
    font = tmp_path / "a.ttf"
    font.write_bytes(b"font a")
    stat = font.stat()
    os.utime(font, ns=(stat.st_atime_ns, stat.st_mtime_ns - 10**10))  # written 10 s ago
    stat = font.stat()
    digest = files_digest([font])
    # the definition, computed directly: name, length, then the content's sha256
    expected = hashlib.sha256(b"a.ttf\x006\x00" + hashlib.sha256(b"font a").digest())
    assert digest == expected.hexdigest()
    assert json.loads((cache / MEMO).read_text())[str(font)][2] == \
        hashlib.sha256(b"font a").hexdigest()
    font.write_bytes(b"font b")  # other bytes, the same size and modification time
    os.utime(font, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert files_digest([font]) == digest  # read from the memo, not the file
    os.utime(font, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert files_digest([font]) != digest  # touched: read again


def test_a_file_changed_just_now_is_not_remembered(tmp_path: Path, cache: Path) -> None:
    font = tmp_path / "a.ttf"
    font.write_bytes(b"font a")
    digest = files_digest([font])
    assert not (cache / MEMO).exists()
    font.write_bytes(b"font b")  # the same size, maybe within the same timestamp tick
    assert files_digest([font]) != digest


def test_a_broken_memo_is_read_as_none(tmp_path: Path, cache: Path) -> None:
    font = tmp_path / "a.ttf"
    font.write_bytes(b"font a")
    stat = font.stat()
    (cache / MEMO).parent.mkdir(parents=True)
    (cache / MEMO).write_text(json.dumps({str(font): [stat.st_size, stat.st_mtime_ns, "zz"]}))
    assert files_digest([font]) == files_digest([font, tmp_path / "absent.ttf"])
    (cache / MEMO).write_text("not json")
    assert len(files_digest([font])) == 64


def test_a_probe_that_times_out_is_made_again_with_a_longer_timeout(tmp_path: Path) -> None:
    marker = tmp_path / "slow-once"
    script = (f"import pathlib, time\nm = pathlib.Path({str(marker)!r})\n"
              "if not m.exists():\n    m.touch()\n    time.sleep(5)\nprint('tool 1.2.3')")
    assert probe([sys.executable, "-c", script], timeout=1.5) == "tool 1.2.3"


def test_a_probe_runs_in_the_c_locale() -> None:
    printed = probe([sys.executable, "-c", "import os; print(os.environ['LC_ALL'])"])
    assert printed == "C"


def test_a_probe_that_fails_twice_is_an_error_naming_it(tmp_path: Path) -> None:
    script = "import sys; print('boom', file=sys.stderr); sys.exit(3)"
    with pytest.raises(RefigError) as caught:
        probe([sys.executable, "-c", script], fix="reinstall it")
    assert "exited 3: boom" in caught.value.message and caught.value.fix == "reinstall it"
    with pytest.raises(RefigError, match="No such file"):
        probe([str(tmp_path / "absent-tool"), "--version"])
