"""Files left by untrusted work are read without following links (refig.confined)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from refig.confined import FileRefused, confined_files, read_confined


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "host" / "secret.txt"
    path.parent.mkdir()
    path.write_bytes(b"host secret")
    return path


def test_reads_a_regular_file_inside(tmp_path: Path) -> None:
    root = tmp_path / "work"
    (root / "out").mkdir(parents=True)
    (root / "out" / "image.png").write_bytes(b"png")
    assert read_confined(root / "out" / "image.png", root, max_bytes=10) == b"png"


def test_refuses_a_link_to_a_host_file(tmp_path: Path, secret: Path) -> None:
    root = tmp_path / "work"
    root.mkdir()
    (root / "image.png").symlink_to(secret)
    with pytest.raises(FileRefused, match="link"):
        read_confined(root / "image.png", root, max_bytes=1 << 20)


def test_refuses_a_linked_folder_on_the_way(tmp_path: Path, secret: Path) -> None:
    root = tmp_path / "work"
    root.mkdir()
    (root / "out").symlink_to(secret.parent)
    with pytest.raises(FileRefused, match="out is a link"):
        read_confined(root / "out" / "secret.txt", root, max_bytes=1 << 20)


def test_refuses_paths_outside_and_climbing_out(tmp_path: Path, secret: Path) -> None:
    root = tmp_path / "work"
    root.mkdir()
    for path in (secret, root / ".." / "host" / "secret.txt", root):
        with pytest.raises(FileRefused, match="outside"):
            read_confined(path, root, max_bytes=1 << 20)


def test_refuses_a_fifo_without_hanging_and_bounds_size(tmp_path: Path) -> None:
    root = tmp_path / "work"
    root.mkdir()
    os.mkfifo(root / "pipe.png")
    with pytest.raises(FileRefused, match="not a regular file"):
        read_confined(root / "pipe.png", root, max_bytes=1 << 20)
    (root / "big.png").write_bytes(b"x" * 11)
    with pytest.raises(FileRefused, match="over the limit"):
        read_confined(root / "big.png", root, max_bytes=10)


def test_listing_keeps_regular_files_and_names_what_it_refused(
    tmp_path: Path, secret: Path
) -> None:
    root = tmp_path / "release"
    (root / "python" / "bar").mkdir(parents=True)
    (root / "python" / "bar" / "a.py").write_text("print(1)")
    (root / "python" / "bar" / "data.csv").symlink_to(secret)
    (root / "python" / "linked").symlink_to(secret.parent, target_is_directory=True)
    os.mkfifo(root / "python" / "fifo.py")
    kept, refused = confined_files(root)
    assert kept == [root / "python" / "bar" / "a.py"]
    reasons = {entry.path.name: entry.reason for entry in refused}
    assert reasons == {
        "data.csv": f"a link to {secret}",
        "linked": "a link to a folder",
        "fifo.py": "not a regular file",
    }
    only_py, _ = confined_files(root, "*.py")
    assert only_py == [root / "python" / "bar" / "a.py"]
