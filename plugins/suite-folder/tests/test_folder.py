"""`refig suite build folder` on generated files and on the real-figures collection."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import pytest
from PIL import Image
from refig.cli import run
from refig.errors import RefigError
from refig.suite import Suite, check_suite
from refig_suite_folder.build import build_folder, task_id

REAL = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "real-figures"


def _image(path: Path, size=(320, 120), fmt: str | None = None, color="#4477AA") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", size, color).save(path, format=fmt)
    return path


def _pdf(path: Path) -> Path:
    buffer = io.BytesIO()
    Image.new("RGB", (400, 200), "#CC3311").save(buffer, format="PDF")
    path.write_bytes(buffer.getvalue())
    return path


@pytest.fixture
def figures(tmp_path) -> Path:
    folder = tmp_path / "figs"
    _image(folder / "overview.png")
    _image(folder / "Überblick (v2).jpg", fmt="JPEG")
    _image(folder / "sub" / "overview.webp", fmt="WEBP")
    _image(folder / "frame.gif", fmt="GIF")
    _image(folder / "scan.tiff", fmt="TIFF")
    _image(folder / "bitmap.bmp", fmt="BMP")
    _pdf(folder / "vector.pdf")
    (folder / "notes.txt").write_text("not a figure")
    _image(folder / ".hidden" / "skip.png")
    return folder


def test_ids_are_sanitised_and_unique():
    assert task_id("Überblick (v2)") == "Uberblick-v2"
    assert task_id("***") == "figure"
    assert task_id("-fig 1-") == "fig-1"


def test_every_format_becomes_a_task(figures, tmp_path):
    suite = build_folder(figures, tmp_path / "suite", name="mine")
    ids = sorted(t.id for t in suite.tasks)
    assert ids == ["Uberblick-v2", "bitmap", "frame", "overview", "overview-2", "scan", "vector"]
    by_id = {t.id: t for t in suite.tasks}
    # PNG, JPEG and WebP are kept byte for byte; the rest become PNG
    kept = suite.input_path(by_id["overview"], "figure").read_bytes()
    assert kept == (figures / "overview.png").read_bytes()
    assert by_id["overview-2"].input("figure").path.endswith(".webp")
    assert by_id["vector"].meta["converted_from"] == "pdf"
    with Image.open(suite.input_path(by_id["vector"], "figure")) as page:
        assert page.size[0] > 400 and page.getpixel((10, 10))[0] > 150  # red page rendered
    assert by_id["scan"].input("figure").path.endswith(".png")
    assert check_suite(suite.root).ok


def test_undecodable_and_oversized_files_are_refused_by_name(figures, tmp_path):
    (figures / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\nnonsense")
    with pytest.raises(RefigError) as caught:
        build_folder(figures, tmp_path / "a")
    assert "broken.png" in str(caught.value)
    (figures / "broken.png").unlink()
    with pytest.raises(RefigError) as caught:
        build_folder(figures, tmp_path / "b", max_pixels=320 * 120 - 1)
    assert "over the limit" in str(caught.value)
    suite = build_folder(figures, tmp_path / "c", max_bytes=2000, skip_invalid=True)
    assert suite.manifest.params["skipped"]  # the larger files were skipped, and listed


def test_provenance_csv_and_hash_check(figures, tmp_path):
    digest = hashlib.sha256((figures / "overview.png").read_bytes()).hexdigest()
    csv_file = tmp_path / "prov.csv"
    csv_file.write_text(f"file,license,field,sha256\noverview.png,CC-BY-4.0,cs.CV,{digest}\n"
                        "gone.png,MIT,cs.CL,\n")
    suite = build_folder(figures, tmp_path / "s", provenance_file=csv_file)
    task = suite.task("overview")
    assert task.meta["provenance"]["license"] == "CC-BY-4.0" and task.meta["field"] == "cs.CV"
    assert suite.manifest.params["unmatched_provenance"] == ["gone.png"]
    csv_file.write_text("file,sha256\noverview.png," + "0" * 64 + "\n")
    with pytest.raises(RefigError, match="provenance records sha256"):
        build_folder(figures, tmp_path / "t", provenance_file=csv_file)


def test_cli_and_info(figures, tmp_path, capsys):
    out = tmp_path / "cli"
    assert run(["suite", "build", "folder", "--from", str(figures), "--out", str(out), "-q"]) == 0
    assert run(["suite", "validate", str(out), "-q"]) == 0
    assert run(["suite", "build", "folder", "--from", str(tmp_path / "none"), "--out",
                str(tmp_path / "x")]) == 2


@pytest.mark.skipif(not REAL.is_dir(), reason="shared/data/real-figures is not present")
def test_real_figures_with_their_manifest(tmp_path, capsys):
    suite = build_folder(REAL, tmp_path / "real")  # manifest.json is found automatically
    manifest = json.loads((REAL / "manifest.json").read_text())
    assert len(suite.tasks) == len(manifest)
    for task in suite.tasks:
        entry = task.meta["provenance"]
        assert task.meta["original_sha256"] == entry["sha256"]
        assert (task.meta["width"], task.meta["height"]) == (entry["width"], entry["height"])
        assert task.meta["field"] == entry["field_guess"]
    assert check_suite(suite.root).ok
    assert isinstance(Suite.load(suite.root), Suite)
    assert run(["suite", "info", str(suite.root)]) == 0
    table = capsys.readouterr().out
    assert "cs.CV" in table and "cs.CL" in table
