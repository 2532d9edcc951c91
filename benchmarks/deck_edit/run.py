"""Deck-edit costs, each as a ratio against a baseline measured in the same run.

``inspect``: the whole-deck inspection (hardened reader, object tree, detail) of the original,
target and prediction plus the structural diff of a case, per slide, against the raw lxml parse
of the same XML parts (every slide, layout, master, theme, notes and chart part of the three
decks, parsed with nothing read from them): what reading and comparing costs above parsing.

``render``: every slide of 20-slide decks through one warm LibreOffice renderer (one batch for
all decks) against one cold LibreOffice per deck (a fresh renderer, profile and process each).

    uv run python benchmarks/deck_edit/run.py [--cases 22] [--decks 6] [--skip-render] [--json]
"""

from __future__ import annotations

import argparse
import io
import json
import platform
import shutil
import statistics
import tempfile
import time
import zipfile
from pathlib import Path

from lxml import etree
from refig_family_deck_edit.compare import compare
from refig_family_deck_edit.inspect_deck import inspect_deck
from refig_family_deck_edit.sample.build import generate_case
from refig_family_deck_edit.sample.recipes import NAMES

_XML = ("ppt/slides/", "ppt/slideLayouts/", "ppt/slideMasters/", "ppt/theme/",
        "ppt/notesSlides/", "ppt/charts/", "ppt/presentation.xml")


def raw_parse(path: Path) -> int:
    """Parse every deck XML part the inspector reads with plain lxml; the number of parts."""
    parts = 0
    with zipfile.ZipFile(path) as archive:
        for name in archive.namelist():
            if name.endswith(".xml") and name.startswith(_XML):
                etree.fromstring(archive.read(name))
                parts += 1
    return parts


def bench_inspect(cases: int, folder: Path, repeats: int = 3) -> dict[str, float]:
    written = []
    for index in range(cases):
        case = generate_case(0, index % len(NAMES))
        original, target = folder / f"{index}-o.pptx", folder / f"{index}-t.pptx"
        original.write_bytes(case.original)
        target.write_bytes(case.target)
        written.append((original, target))
    slides = 0
    ours, raw = [], []
    for _ in range(repeats):
        started = time.perf_counter()
        for original, target in written:
            one, two = inspect_deck(original).structure, inspect_deck(target).structure
            three = inspect_deck(target).structure  # the prediction (an oracle here)
            compare(one, two, three)
        ours.append(time.perf_counter() - started)
        started = time.perf_counter()
        for original, target in written:
            raw_parse(original), raw_parse(target), raw_parse(target)
        raw.append(time.perf_counter() - started)
    for original, target in written:
        slides += 2 * len(inspect_deck(original).structure.slides)
        slides += len(inspect_deck(target).structure.slides)
    per_ours, per_raw = min(ours) / slides * 1e3, min(raw) / slides * 1e3
    return {"cases": cases, "slides": slides, "inspect_and_diff_ms_per_slide": round(per_ours, 3),
            "raw_lxml_ms_per_slide": round(per_raw, 3), "ratio": round(per_ours / per_raw, 2)}


def twenty_slide_deck(index: int) -> bytes:
    """A 20-slide deck: a generated deck's slides repeated (tables, charts, pictures, groups)."""
    import random

    from pptx import Presentation
    from refig_family_deck_edit.sample.deck import build_deck
    from refig_family_deck_edit.sample.package import deck_bytes

    prs, _ = build_deck(random.Random(index))
    while len(prs.slides) < 20:
        extra, _ = build_deck(random.Random(index * 100 + len(prs.slides)))
        for slide in extra.slides:
            if len(prs.slides) >= 20:
                break
            copy = prs.slides.add_slide(prs.slide_layouts[5])
            copy.shapes.title.text = slide.shapes.title.text if slide.shapes.title else "Slide"
            for shape in slide.shapes:
                if shape.shape_type in (1, 17) and shape.has_text_frame:  # shapes and text
                    copy.shapes._spTree.append(shape._element)
    data = deck_bytes(prs)
    assert len(Presentation(io.BytesIO(data)).slides) == 20
    return data


def bench_render(decks: int, folder: Path) -> dict[str, float]:
    from refig.plugin import RenderJob
    from refig_renderer_libreoffice.renderer import LibreOfficeRenderer

    paths = []
    for index in range(decks):
        path = folder / f"deck20-{index}.pptx"
        path.write_bytes(twenty_slide_deck(index))
        paths.append(path)
    jobs = [RenderJob(p, pages="all", hidden=True) for p in paths]
    out = folder / "out"
    with LibreOfficeRenderer() as warm:
        warm.render(jobs[:1], out)  # start-up and font cache, as a warm renderer has
        started = time.perf_counter()
        outputs = warm.render(jobs, out)
        batched = time.perf_counter() - started
    assert all(len(o.pages) == 20 for o in outputs), [o.error for o in outputs]
    cold = []
    for job in jobs:
        started = time.perf_counter()
        with LibreOfficeRenderer() as fresh:
            [done] = fresh.render([job], out)
        cold.append(time.perf_counter() - started)
        assert len(done.pages) == 20
    shutil.rmtree(out, ignore_errors=True)
    per_batched, per_cold = batched / decks, statistics.mean(cold)
    return {"decks": decks, "slides_per_deck": 20,
            "batched_s_per_deck": round(per_batched, 2), "cold_s_per_deck": round(per_cold, 2),
            "speedup": round(per_cold / per_batched, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=22)
    parser.add_argument("--decks", type=int, default=6)
    parser.add_argument("--skip-render", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="deck-bench-"))
    try:
        results = {"machine": f"{platform.machine()}, python {platform.python_version()}",
                   "inspect": bench_inspect(args.cases, folder)}
        if not args.skip_render:
            results["render"] = bench_render(args.decks, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(json.dumps(results, indent=None if args.json else 2))


if __name__ == "__main__":
    main()
