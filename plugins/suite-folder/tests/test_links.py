"""`refig suite build folder` never follows a link out of `--from`: a release folder whose data
file, or whose manifest, is a symlink to a "credentials" file elsewhere gives a suite without it,
and the command names the refused path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image
from refig.cli import run

SECRET = "sk-live-0123456789abcdef"


def _flat(text: str) -> str:
    """``text`` without whitespace: the console wraps long lines wherever the width ends."""
    return "".join(text.split())


def _png(path: Path, color: str, text: bytes = b"") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (320, 120), color).save(path)
    if text:  # bytes after IEND: still a decodable PNG, and easy to find again
        path.write_bytes(path.read_bytes() + text)
    return path


def _every_byte(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file())


@pytest.fixture
def release(tmp_path: Path) -> Path:
    """A release folder with one real figure and links to files outside it."""
    outside = tmp_path / "home"
    credentials = _png(outside / "credentials.png", "#000000", SECRET.encode())
    (outside / "keys.json").write_text(json.dumps(
        [{"file": "overview.png", "license": "CC-BY-4.0", "api_key": SECRET}]))
    (outside / "private").mkdir()
    _png(outside / "private" / "scan.png", "#112233", SECRET.encode())
    folder = tmp_path / "release"
    _png(folder / "overview.png", "#4477AA")
    (folder / "data.png").symlink_to(credentials)
    (folder / "sub").mkdir()
    (folder / "sub" / "also.png").symlink_to("../../home/credentials.png")
    (folder / "more").symlink_to(outside / "private", target_is_directory=True)
    return folder


def test_a_linked_figure_is_refused_named_and_counted(release: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "suite"
    assert run(["suite", "build", "folder", "--from", str(release), "--out", str(out),
                "-q"]) == 0
    assert SECRET.encode() not in _every_byte(out)
    suite = json.loads((out / "suite.json").read_text())
    refused = {r["path"]: r["reason"] for r in suite["params"]["refused"]}
    assert set(refused) == {"data.png", "sub/also.png", "more"}
    assert "credentials.png" in refused["data.png"]
    said = _flat(capsys.readouterr().err)
    for path in ("data.png", "sub/also.png", "more"):
        assert _flat(f"refused {path}") in said
    assert _flat("3 links or special files refused") in said
    assert [line for line in (out / "tasks.jsonl").read_text().splitlines() if line]
    assert "overview" in (out / "tasks.jsonl").read_text()


def test_a_linked_manifest_is_refused_by_name(release: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    (release / "manifest.json").symlink_to(tmp_path / "home" / "keys.json")
    out = tmp_path / "suite"
    code = run(["suite", "build", "folder", "--from", str(release), "--out", str(out), "-q"])
    said = _flat(capsys.readouterr().err)
    assert code != 0 and _flat("manifest.json is a link") in said
    assert not out.exists() or SECRET.encode() not in _every_byte(out)


def test_a_folder_of_links_only_is_no_suite(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "links"
    folder.mkdir()
    (folder / "a.png").symlink_to(_png(tmp_path / "elsewhere.png", "#000000"))
    code = run(["suite", "build", "folder", "--from", str(folder), "--out",
                str(tmp_path / "s"), "-q"])
    said = _flat(capsys.readouterr().err)
    assert code != 0 and _flat("no figures") in said
    assert _flat("1 links or special files refused") in said
