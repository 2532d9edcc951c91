"""Artifacts per minute through gate + render + object tree, against the naive way, in one run.

refig's way: the structural gate and object tree on a thread pool, then the ``libreoffice``
renderer (batches of up to 32 files per warm LibreOffice process, ``--jobs`` processes at once,
each with its own profile), then PDF to PNG with pypdfium2.

The naive way: for each file, one cold ``soffice --headless --convert-to pdf`` (sequentially,
since concurrent soffice processes sharing one profile fail; the profile is the run's own, so
the user's is never touched), then the same PDF to PNG and the same gate and object tree. It
runs on a subset (``--naive``) and is reported per artifact, which is what it costs: every file
pays the same start-up.

The slides are generated here with python-pptx (boxes with text, bound connectors, a table, a
group, sometimes a picture), seeded, so every run measures the same corpus.

    uv run python benchmarks/render_throughput/run.py [--slides 300] [--naive 40] [--jobs 2]
        [--sweep 96] [--json]
"""

from __future__ import annotations

import argparse
import io
import itertools
import json
import os
import platform
import random
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from PIL import Image
from pptx import Presentation
from pptx.enum.shapes import MSO_CONNECTOR, MSO_SHAPE
from pptx.util import Emu
from refig.protocols import RenderJob
from refig_renderer_libreoffice import raster as raster_module
from refig_renderer_libreoffice.raster import pdf_to_png
from refig_renderer_libreoffice.renderer import LibreOfficeRenderer, find_soffice
from refig_toolkit_pptx.gate import fold_render, inspect_structure

WIDTH, HEIGHT = 12_192_000, 6_858_000


def make_slide(path: Path, rng: random.Random) -> None:
    """A figure-like slide: labelled boxes joined by bound arrows, a caption, extras by chance."""
    prs = Presentation()
    prs.slide_width, prs.slide_height = Emu(WIDTH), Emu(HEIGHT)
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    shapes = slide.shapes
    boxes = []
    for i in range(rng.randint(3, 8)):
        x = rng.randint(0, WIDTH - 2_000_000)
        y = rng.randint(0, HEIGHT - 1_000_000)
        kind = rng.choice([MSO_SHAPE.RECTANGLE, MSO_SHAPE.ROUNDED_RECTANGLE, MSO_SHAPE.OVAL])
        box = shapes.add_shape(kind, Emu(x), Emu(y), Emu(1_800_000), Emu(800_000))
        box.text = f"Stage {i} of {rng.randint(1, 99)}"
        boxes.append(box)
    for a, b in itertools.pairwise(boxes):
        link = shapes.add_connector(MSO_CONNECTOR.ELBOW, 0, 0, 1, 1)
        link.begin_connect(a, 3)
        link.end_connect(b, 1)
    caption = shapes.add_textbox(Emu(300_000), Emu(HEIGHT - 600_000), Emu(6_000_000), Emu(400_000))
    caption.text = "Figure: a generated pipeline " + "x" * rng.randint(0, 40)
    if rng.random() < 0.3:
        table = shapes.add_table(3, 3, Emu(8_000_000), Emu(300_000), Emu(3_000_000), Emu(900_000))
        table.table.cell(0, 0).text = "k"
    if rng.random() < 0.3:
        group = shapes.add_group_shape()
        for j in range(3):
            group.shapes.add_shape(
                MSO_SHAPE.DIAMOND, Emu(300_000 * j), Emu(300_000), Emu(250_000), Emu(250_000)
            )
    if rng.random() < 0.2:
        buffer = io.BytesIO()
        Image.new("RGB", (200, 120), (rng.randrange(256), 90, 160)).save(buffer, "PNG")
        shapes.add_picture(buffer, Emu(9_000_000), Emu(4_000_000), Emu(2_000_000), Emu(1_200_000))
    prs.save(path)


def refig_way(
    files: list[Path], out: Path, jobs: int, width: int, batch_size: int = 32
) -> dict[str, float]:
    """Gate + tree (threads), then the batched renderer; time per stage."""
    raster_seconds = 0.0
    lock = threading.Lock()

    def timed_raster(*args, **kwargs):
        nonlocal raster_seconds
        started = time.perf_counter()
        try:
            return pdf_to_png(*args, **kwargs)
        finally:
            with lock:
                raster_seconds += time.perf_counter() - started

    started = time.perf_counter()
    with ThreadPoolExecutor(jobs) as pool:
        structures = list(pool.map(inspect_structure, files))
    inspected = time.perf_counter()
    passing = [f for f, s in zip(files, structures, strict=True) if s.gate.passed]
    raster_module.pdf_to_png = timed_raster  # count PDF-to-PNG time inside the renderer
    try:
        with LibreOfficeRenderer(width=width, workers=jobs, batch_size=batch_size) as renderer:
            warm = time.perf_counter()
            outputs = renderer.render([RenderJob(f) for f in passing], out)
    finally:
        raster_module.pdf_to_png = pdf_to_png
    rendered = time.perf_counter()
    rendered_by_file = dict(zip(passing, outputs, strict=True))
    gates = [
        fold_render(s.gate, o.error, o.png is not None)
        if (o := rendered_by_file.get(f))
        else s.gate
        for f, s in zip(files, structures, strict=True)
    ]
    total = rendered - started
    return {
        "artifacts": len(files),
        "passed": sum(g.passed for g in gates),
        "seconds": total,
        "per_minute": len(files) / total * 60,
        "gate_tree_seconds": inspected - started,
        "renderer_setup_seconds": warm - inspected,
        "render_seconds": rendered - warm,
        "raster_seconds": raster_seconds,
    }


def cold_convert(soffice: str, profile: Path, path: Path, out: Path) -> None:
    """One ``soffice --convert-to pdf`` of one file, its process group killed after 300 s."""
    cold = subprocess.Popen(
        [
            soffice,
            f"-env:UserInstallation={profile.resolve().as_uri()}",
            "--headless",
            "--convert-to",
            "pdf",
            "--outdir",
            str(out),
            str(path),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own group: soffice.bin outlives the oosplash we started
    )
    try:
        cold.wait(timeout=300)
    except subprocess.TimeoutExpired:
        os.killpg(cold.pid, signal.SIGKILL)
        cold.wait()


def naive_way(files: list[Path], out: Path, width: int) -> dict[str, float]:
    """One cold soffice per file, sequentially; the same PNG step and gate + tree."""
    soffice = find_soffice()
    profile = out / "profile"
    if files:  # untimed: a user's default profile already exists, so create this one first
        cold_convert(soffice, profile, files[0], out / "warm-up")
    convert = raster = gate = 0.0
    passed = 0
    for path in files:
        started = time.perf_counter()
        structure = inspect_structure(path)
        checked = time.perf_counter()
        cold_convert(soffice, profile, path, out)
        converted = time.perf_counter()
        pdf = out / (path.stem + ".pdf")
        ok = pdf.is_file()
        if ok:
            pdf_to_png(pdf, out / (path.stem + ".png"), width=width)
        done = time.perf_counter()
        passed += int(ok and structure.gate.passed)
        gate += checked - started
        convert += converted - checked
        raster += done - converted
    total = gate + convert + raster
    return {
        "artifacts": len(files),
        "passed": passed,
        "seconds": total,
        "per_minute": len(files) / total * 60,
        "gate_tree_seconds": gate,
        "convert_seconds": convert,
        "raster_seconds": raster,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--slides", type=int, default=300)
    parser.add_argument("--naive", type=int, default=40, help="files for the naive baseline")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--width", type=int, default=1600)
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument(
        "--sweep",
        type=int,
        default=0,
        metavar="N",
        help="also time N slides with other worker and batch settings",
    )
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="refig-bench-render-"))
    try:
        rng = random.Random(20261129)
        corpus = work / "corpus"
        corpus.mkdir()
        files = []
        for index in range(args.slides):
            path = corpus / f"slide{index:04d}.pptx"
            make_slide(path, rng)
            files.append(path)
        load_before = os.getloadavg()
        ours = refig_way(files, work / "refig", args.jobs, args.width)
        naive_dir = work / "naive"
        naive_dir.mkdir()
        naive = naive_way(files[: args.naive], naive_dir, args.width)
        sweep = {}
        for workers, batch in ((1, 32), (2, 1), (2, 8), (2, 32)) if args.sweep else ():
            key = f"workers={workers},batch={batch}"
            run_dir = work / key
            sweep[key] = refig_way(files[: args.sweep], run_dir, workers, args.width, batch)
        load_after = os.getloadavg()
    finally:
        shutil.rmtree(work, ignore_errors=True)

    results = {
        "refig": ours,
        "naive": naive,
        "speedup": ours["per_minute"] / naive["per_minute"],
        "sweep": {k: round(v["per_minute"]) for k, v in sweep.items()},
        "jobs": args.jobs,
        "width": args.width,
        "cores": os.cpu_count(),
        "load_average_before": load_before,
        "load_average_after": load_after,
        "machine": platform.platform(),
        "libreoffice": _version(),
    }
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(
        f"refig : {ours['artifacts']} artifacts in {ours['seconds']:.1f} s "
        f"= {ours['per_minute']:.0f}/min  (gate+tree {ours['gate_tree_seconds']:.1f} s, "
        f"renderer start {ours['renderer_setup_seconds']:.1f} s, "
        f"render {ours['render_seconds']:.1f} s of which PDF->PNG "
        f"{ours['raster_seconds']:.1f} s summed over {args.jobs} workers)"
    )
    print(
        f"naive : {naive['artifacts']} artifacts in {naive['seconds']:.1f} s "
        f"= {naive['per_minute']:.0f}/min  (gate+tree {naive['gate_tree_seconds']:.1f} s, "
        f"LibreOffice {naive['convert_seconds']:.1f} s, PDF->PNG {naive['raster_seconds']:.1f} s)"
    )
    for key, rate in results["sweep"].items():
        print(f"sweep : {key}: {rate}/min on {args.sweep} slides")
    print(
        f"speedup: {results['speedup']:.1f}x on {os.cpu_count()} cores "
        f"(load average {load_before[0]:.1f} before, {load_after[0]:.1f} after)"
    )


def _version() -> str:
    from refig_renderer_libreoffice.renderer import libreoffice_version

    return libreoffice_version(find_soffice())


if __name__ == "__main__":
    main()
