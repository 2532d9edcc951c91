"""Both baselines through the real ``refig run``: subprocesses in sandboxed workspaces, into the
store; the cv slide carries native text and bound connectors, and its program rebuilds it."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from lxml import etree
from refig.models import Attempt, AttemptStatus, Output, Task
from refig.store import RunStore
from refig.suite import SuiteWriter

NS = {"a": "http://schemas.openxmlformats.org/drawingml/2006/main",
      "p": "http://schemas.openxmlformats.org/presentationml/2006/main"}
REAL = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "real-figures"

Refig = Callable[..., subprocess.CompletedProcess[str]]


def slide_xml(pptx: bytes) -> etree._Element:
    with zipfile.ZipFile(io.BytesIO(pptx)) as archive:
        slides = [n for n in archive.namelist() if n.startswith("ppt/slides/slide")
                  and n.endswith(".xml")]
        assert len(slides) == 1
        return etree.fromstring(archive.read(slides[0]))


def presentation_size(pptx: bytes) -> tuple[int, int]:
    with zipfile.ZipFile(io.BytesIO(pptx)) as archive:
        size = etree.fromstring(archive.read("ppt/presentation.xml")).find("p:sldSz", NS)
    return int(size.get("cx")), int(size.get("cy"))


def run_both(refig: Refig, suite: Path, out: Path, *extra: str) -> None:
    for harness in ("raster-paste", "cv"):
        done = refig("run", "--suite", str(suite), "--harness", harness, "--out", str(out),
                     "-j", "2", "--json", "--workspace-root", str(out.parent / "attempts"),
                     *extra)
        assert done.returncode == 0, done.stderr
        summary = json.loads(done.stdout)
        assert summary["failed"] == 0, summary
        assert summary["configuration"] == f"none@{harness}/direct"


def check_raster_paste(store: RunStore, attempt: Attempt) -> None:
    pptx = store.objects.read_bytes(attempt.outputs["slide"])
    tree = slide_xml(pptx)
    pictures = tree.findall(".//p:pic", NS)
    assert len(pictures) == 1 and not tree.findall(".//p:sp", NS)
    extent = pictures[0].find(".//a:xfrm/a:ext", NS)
    assert (int(extent.get("cx")), int(extent.get("cy"))) == presentation_size(pptx)


def check_cv(store: RunStore, attempt: Attempt) -> dict[str, int]:
    """Native text and bound connectors with arrow heads; returns the counts."""
    tree = slide_xml(store.objects.read_bytes(attempt.outputs["slide"]))
    assert not tree.findall(".//p:pic", NS)
    text = " ".join(t.text or "" for t in tree.iterfind(".//a:t", NS))
    connectors = tree.findall(".//p:cxnSp", NS)
    bound = [c for c in connectors if c.find(".//a:stCxn", NS) is not None
             and c.find(".//a:endCxn", NS) is not None]
    heads = [c for c in connectors if c.find(".//a:tailEnd", NS) is not None
             or c.find(".//a:headEnd", NS) is not None]
    return {"text": len(text), "shapes": len(tree.findall(".//p:sp", NS)),
            "bound": len(bound), "heads": len(heads)}


def test_both_baselines_run_end_to_end_into_the_store(
        refig: Refig, drawn_suite: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    run_both(refig, drawn_suite, out)
    store = RunStore.open(out)
    attempts = store.query(Attempt)
    assert len(attempts) == 6 and {a.status for a in attempts} == {AttemptStatus.SUCCEEDED}
    tasks = {t.id: t for t in store.query(Task)}
    annotations = {tid: json.loads(store.objects.read_bytes(t.input("annotation").sha256))
                   for tid, t in tasks.items()}
    for attempt in attempts:
        assert {"slide", "program", Output.TRANSCRIPT, Output.LOG} <= set(
            attempt.outputs)
        assert attempt.turns == 0 and attempt.cost_usd == 0.0
        assert attempt.prompt_version == "direct.v1" and attempt.harness_version
        if attempt.config_id.startswith("none@raster-paste"):
            check_raster_paste(store, attempt)
            continue
        tree = slide_xml(store.objects.read_bytes(attempt.outputs["slide"]))
        text = " ".join(t.text or "" for t in tree.iterfind(".//a:t", NS)).lower()
        labels = annotations[attempt.task_id]["nodes"]
        assert sum(label.lower() in text for label in labels) >= 2, text
        counts = check_cv(store, attempt)
        assert counts["bound"] >= 2 and counts["heads"] >= 2, counts
        transcript = store.objects.read_bytes(attempt.outputs[Output.TRANSCRIPT]).decode()
        assert '"step": "detect"' in transcript


def test_the_cv_program_rebuilds_its_slide(
        refig: Refig, drawn_suite: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    done = refig("run", "--suite", str(drawn_suite), "--harness", "cv", "--out", str(out),
                 "--limit", "1", "-q", "--workspace-root", str(tmp_path / "attempts"))
    assert done.returncode == 0, done.stderr
    store = RunStore.open(out)
    [attempt] = store.query(Attempt)
    task = store.get(Task, id=attempt.task_id)
    work = tmp_path / "rebuild"
    work.mkdir()
    shutil.copyfile(store.objects.path(task.input("figure").sha256), work / "source.png")
    shutil.copyfile(store.objects.path(attempt.outputs["program"]), work / "build_slide.py")
    subprocess.run([sys.executable, "build_slide.py"], cwd=work, check=True, timeout=120)
    rebuilt = slide_xml((work / "slide.pptx").read_bytes())
    original = slide_xml(store.objects.read_bytes(attempt.outputs["slide"]))
    assert etree.tostring(rebuilt) == etree.tostring(original)


@pytest.mark.slow
def test_real_figures_imported_as_a_suite(refig: Refig, tmp_path: Path) -> None:
    figures = sorted(REAL.glob("*.png")) + sorted(REAL.glob("*.jpg")) if REAL.is_dir() else []
    if not figures:
        pytest.skip(f"no real figures at {REAL}")
    # The two smallest keep this test short; `refig run` on the whole folder works the same.
    chosen = sorted(figures, key=lambda p: p.stat().st_size)[:2]
    writer = SuiteWriter(tmp_path / "suite", name="real-figures", family="figure-to-slide",
                         builder="test-import")
    for path in chosen:
        writer.add(path.stem.replace("_", "-"), path.name, path.read_bytes())
    writer.finish()
    out = tmp_path / "run"
    run_both(refig, tmp_path / "suite", out, "--timeout", "600")
    store = RunStore.open(out)
    for attempt in store.query(Attempt, config_id="none@cv/direct"):
        counts = check_cv(store, attempt)
        assert counts["text"] > 20 and counts["shapes"] >= 3, counts
        assert counts["bound"] >= 1, counts
    for attempt in store.query(Attempt, config_id="none@raster-paste/direct"):
        check_raster_paste(store, attempt)


def test_unknown_names_exit_2_before_any_work(
        refig: Refig, drawn_suite: Path, tmp_path: Path) -> None:
    for flag, value, listed in (("--harness", "nope", "raster-paste"),
                                ("--workflow", "nope", "specialized"),
                                ("--executor", "nope", "local")):
        args = ["--harness", "cv", "--workflow", "direct", "--executor", "local"]
        args[args.index(flag) + 1] = value
        done = refig("run", "--suite", str(drawn_suite), "--out", str(tmp_path / "run"), *args)
        assert done.returncode == 2 and listed in done.stderr, done.stderr
    assert not (tmp_path / "run").exists()
    done = refig("run", "--suite", str(drawn_suite), "--out", str(tmp_path / "run"),
                 "--harness", "cv", "--model", "gpt-5.5")
    assert done.returncode == 2 and "uses no model" in done.stderr
