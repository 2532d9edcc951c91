"""`refig check` through the real CLI: generated valid, hostile and cheating decks, a real
LibreOffice, metrics from an installed plugin distribution, and the documented ``--json``."""

from __future__ import annotations

import json
import shutil
import tempfile
import zipfile
from pathlib import Path

import pytest
from PIL import Image, ImageDraw
from pptx import Presentation
from pptx.enum.shapes import MSO_CONNECTOR, MSO_SHAPE
from pptx.util import Emu
from refig.cli import run as refig

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice is not installed"),
]

COUNT_KEYS = [
    "text_boxes",
    "auto_shapes",
    "connectors",
    "bound_connectors",
    "freeforms",
    "groups",
    "pictures",
    "tables",
    "charts",
    "smartart",
]
WIDTH, HEIGHT = 12_192_000, 6_858_000


def source_png(path: Path) -> Path:
    image = Image.new("RGB", (640, 360), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle((40, 140, 240, 220), outline="black", width=4)
    draw.rectangle((400, 140, 600, 220), outline="black", width=4)
    draw.line((240, 180, 400, 180), fill="black", width=4)
    image.save(path)
    return path


def new_deck(slides: int = 1) -> Presentation:
    prs = Presentation()
    prs.slide_width, prs.slide_height = Emu(WIDTH), Emu(HEIGHT)
    for _ in range(slides):
        prs.slides.add_slide(prs.slide_layouts[6])
    return prs


def native(path: Path) -> Path:
    prs = new_deck()
    shapes = prs.slides[0].shapes
    a = shapes.add_shape(
        MSO_SHAPE.RECTANGLE, Emu(900_000), Emu(2_500_000), Emu(3_000_000), Emu(1_200_000)
    )
    b = shapes.add_shape(
        MSO_SHAPE.RECTANGLE, Emu(7_500_000), Emu(2_500_000), Emu(3_000_000), Emu(1_200_000)
    )
    a.text, b.text = "Encoder", "Decoder"
    link = shapes.add_connector(MSO_CONNECTOR.STRAIGHT, 0, 0, 1, 1)
    link.begin_connect(a, 3)
    link.end_connect(b, 1)
    shapes.add_connector(MSO_CONNECTOR.STRAIGHT, Emu(0), Emu(0), Emu(900_000), Emu(900_000))
    shapes.add_textbox(Emu(900_000), Emu(5_000_000), Emu(4_000_000), Emu(600_000)).text = "caption"
    prs.save(path)
    return path


def paste(path: Path, picture: Path) -> Path:
    prs = new_deck()
    prs.slides[0].shapes.add_picture(str(picture), 0, 0, Emu(WIDTH), Emu(HEIGHT))
    prs.save(path)
    return path


def hidden_only(path: Path) -> Path:
    prs = new_deck()
    prs.slides[0].shapes.add_textbox(0, 0, Emu(914_400), Emu(914_400)).text = "hidden"
    prs.slides[0]._element.set("show", "0")
    prs.save(path)
    return path


def two_slides(path: Path) -> Path:
    new_deck(slides=2).save(path)
    return path


def zip_bomb(path: Path) -> Path:
    native(path)
    with (
        zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED) as archive,
        archive.open("ppt/media/x.bin", "w") as handle,
    ):
        for _ in range(32):
            handle.write(b"\0" * (1 << 20))
    return path


def laughs(path: Path) -> Path:
    native(path)
    with zipfile.ZipFile(path) as archive:
        parts = {i.filename: archive.read(i) for i in archive.infolist()}
    body = parts["ppt/slides/slide1.xml"].split(b"?>", 1)[1]
    parts["ppt/slides/slide1.xml"] = (
        b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;&a;">]>' + body
    )
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    return path


@pytest.fixture
def corpus(tmp_path: Path) -> dict[str, Path]:
    figure = source_png(tmp_path / "figure.png")
    not_zip = tmp_path / "notes.pptx"
    not_zip.write_text("plain text")
    truncated = tmp_path / "truncated.pptx"
    truncated.write_bytes(native(tmp_path / "whole.pptx").read_bytes()[:900])
    return {
        "figure": figure,
        "native": native(tmp_path / "native.pptx"),
        "paste": paste(tmp_path / "paste.pptx", figure),
        "hidden": hidden_only(tmp_path / "hidden.pptx"),
        "two": two_slides(tmp_path / "two.pptx"),
        "not_zip": not_zip,
        "truncated": truncated,
        "bomb": zip_bomb(tmp_path / "bomb.pptx"),
        "laughs": laughs(tmp_path / "laughs.pptx"),
        "missing": tmp_path / "missing.pptx",
    }


def check_json(capsys, *args: str, code: int = 0) -> list[dict]:
    assert refig(["check", "--json", "-q", *args]) == code
    return json.loads(capsys.readouterr().out)


def test_check_json_verdicts_counts_and_order(corpus, probe_metric, capsys) -> None:
    names = [
        "native",
        "paste",
        "hidden",
        "two",
        "not_zip",
        "truncated",
        "bomb",
        "laughs",
        "missing",
        "native",
    ]
    files = [str(corpus[n]) for n in names]
    reports = check_json(capsys, *files, "--source", str(corpus["figure"]), "--metric", "probe",
                         code=1)  # two inputs are unreadable (a text file, a missing file)

    assert [r["file"] for r in reports] == files  # one per file, in the order given
    verdicts = [(r["gate"]["passed"], r["gate"]["reason"]) for r in reports]
    assert verdicts == [
        (True, None),
        (True, None),
        (True, None),
        (False, "multiple_slides"),
        (False, "not_a_zip"),
        (False, "corrupt"),
        (False, "too_large"),
        (False, "corrupt"),
        (False, "missing"),
        (True, None),
    ]
    native_report = reports[0]
    assert list(native_report["objects"]) == COUNT_KEYS
    assert native_report["objects"] == dict.fromkeys(COUNT_KEYS, 0) | {
        "auto_shapes": 2,
        "connectors": 2,
        "bound_connectors": 1,
        "text_boxes": 1,
    }
    assert native_report["slides"] == 1 and native_report["sha256"]
    assert reports[1]["objects"]["pictures"] == 1
    assert reports[3]["slides"] == 2 and reports[3]["objects"] is None
    # the probe metric ran on every deck that was read, with the render and the source
    for report in reports:
        # the top-level fields are the flattening metric's alone, not any metric's of that name
        assert report["raster_area_ratio"] is None and report["flattened"] is None
        if report["objects"] is None:
            assert report["metrics"] == {}
            continue
        assert report["metrics"]["probe"]["raster_area_ratio"] == 0.25
        assert report["metrics"]["probe"]["saw_source"] == 1.0
        assert report["metrics"]["probe"]["saw_render"] == 1.0
        render = report["render"]
        assert render["width"] == 1600 and render["height"] == 900 and render["png_sha256"]
    assert reports[0]["render"]["png_sha256"] == reports[-1]["render"]["png_sha256"]
    assert len(probe_metric.read_text().split()) == 3  # three decks read; a duplicate once


def test_without_a_flattening_metric_its_fields_are_null(corpus, probe_metric, capsys) -> None:
    [report] = check_json(capsys, str(corpus["native"]))
    assert report["gate"]["passed"] and report["metrics"] == {}
    assert report["raster_area_ratio"] is None and report["flattened"] is None
    assert probe_metric.read_text() == ""  # the probe is not a default metric


def test_the_real_flattening_metric_catches_the_paste(corpus, monkeypatch, capsys) -> None:
    pytest.importorskip("refig_metric_flattening")
    monkeypatch.setenv(
        "REFIG_LOAD_PLUGINS",
        "refig-renderer-libreoffice,refig-metric-flattening,"
        "refig-family-figure-to-slide",
    )
    native_report, paste_report = check_json(
        capsys,
        str(corpus["native"]),
        str(corpus["paste"]),
        "--source",
        str(corpus["figure"]),
        "--metric",
        "flattening",
    )
    assert native_report["flattened"] is False and native_report["raster_area_ratio"] == 0
    assert paste_report["flattened"] is True and paste_report["raster_area_ratio"] > 0.95


@pytest.mark.parametrize(
    ("option", "name", "listed"),
    [
        ("--metric", "nope", "probe"),
        ("--renderer", "nope", "libreoffice"),
        ("--executor", "nope", "local"),
    ],
)
def test_unknown_names_exit_2_before_any_work(corpus, probe_metric, capsys, option, name, listed):
    assert refig(["check", str(corpus["native"]), "--metric", "probe", option, name]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and listed in captured.err and repr(name) in captured.err
    assert probe_metric.read_text() == ""  # the probe, selected first, never ran


def test_a_slide_too_tall_to_render_is_a_verdict(corpus, probe_metric, tmp_path, capsys) -> None:
    """``p:sldSz`` of 1 x 10,000 inches once crashed `refig check` inside PDFium."""
    tall = tmp_path / "tall.pptx"
    with zipfile.ZipFile(corpus["native"]) as archive:
        parts = {i.filename: archive.read(i) for i in archive.infolist()}
    parts["ppt/presentation.xml"] = parts["ppt/presentation.xml"].replace(
        f'<p:sldSz cx="{WIDTH}" cy="{HEIGHT}"'.encode(), b'<p:sldSz cx="914400" cy="9144000000"'
    )
    with zipfile.ZipFile(tall, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    report, native_report = check_json(capsys, str(tall), str(corpus["native"]))
    assert (report["gate"]["passed"], report["gate"]["reason"]) == (False, "render_failed")
    assert "pixels" in report["render"]["error"] and report["objects"]["connectors"] == 2
    assert native_report["gate"]["passed"]


def test_the_table_output(corpus, probe_metric, capsys) -> None:
    assert refig(["check", "-q", str(corpus["native"]), str(corpus["two"])]) == 0
    out = capsys.readouterr().out
    assert "pass" in out and "multiple_slides" in out and "2 slides" in out


def test_a_missing_source_figure_is_a_usage_error(corpus, probe_metric, capsys) -> None:
    assert refig(["check", str(corpus["native"]), "--source", "nowhere.png"]) == 2
    assert "nowhere.png" in capsys.readouterr().err


def test_check_leaves_no_libreoffice_running(corpus, probe_metric, capsys, tmp_path,
                                             monkeypatch):
    # its own temporary directory: LibreOffice run by other processes on the machine is not ours
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)
    check_json(capsys, str(corpus["native"]))
    ours = f"{tmp_path}/refig-libreoffice-".encode()
    leftovers = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if ours in (entry / "cmdline").read_bytes():
                    leftovers.append(entry.name)
            except OSError:
                continue
    assert leftovers == []
    assert list(tmp_path.glob("refig-libreoffice-*")) == []  # and its scratch files are gone


@pytest.mark.parametrize("make", ["missing", "text", "png", "empty", "directory"])
def test_unreadable_input_exits_1_naming_the_file(tmp_path, corpus, capsys, make) -> None:
    path = {"missing": tmp_path / "gone.pptx", "text": tmp_path / "notes.txt",
            "png": tmp_path / "figure.pptx", "empty": tmp_path / "empty.pptx",
            "directory": tmp_path / "folder.pptx"}[make]
    if make == "text":
        path.write_text("plain text, not a deck")
    elif make == "png":
        shutil.copyfile(corpus["figure"], path)  # a PNG renamed .pptx
    elif make == "empty":
        path.write_bytes(b"")
    elif make == "directory":
        path.mkdir()
    assert refig(["check", "--json", "-q", str(path), str(corpus["native"])]) == 1
    captured = capsys.readouterr()
    reports = json.loads(captured.out)
    assert f"error: {path}:" in captured.err.replace("\n", "")
    assert [r["file"] for r in reports] == [str(path), str(corpus["native"])]
    assert not reports[0]["gate"]["passed"] and reports[1]["gate"]["passed"]


def test_a_failed_gate_is_a_result_and_exits_0(corpus, capsys) -> None:
    [report] = check_json(capsys, str(corpus["two"]))
    assert report["gate"]["reason"] == "multiple_slides"
