"""The text metric's values at two OCR settings, with the source's words read by OCR.

    uv run python benchmarks/full_pass/ocr_side_values.py SUITE [--figures 20] [--sides 1600 2000]
        [--detector-sides 1024 1024] [--real ../shared/data/real-figures]

A setting is OCR's longest side (``ocr_max_side``) and its detector's (``ocr_detector_side``, 0
for RapidOCR's own rule); the first of each pair is the old setting, the second the new.

The metric is shown no annotation, so the source's words come from OCR of the figure, as for a
benchmark of real figures without labels. Generated figures (SUITE, from ``refig suite build
sample``): one slide in each of the ten styles of :mod:`slides` from the figure's exact
annotation, of which style 0, a faithful native rebuild, has a known recall of 1.0 against the
labels. Real figures: pasted whole, and typed natively from the lines OCR reads in them. Both
settings run in one process; the OCR of each source is cached per setting, so both pay it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

from corpus import REAL_FIGURES, real_figures, suite_tasks
from pptx import Presentation
from pptx.util import Emu
from refig.protocols import Artifact
from refig_metric_text.metric import TextRecall
from refig_toolkit_imaging.ocr import DETECTOR_SIDE, engine, read_text
from refig_toolkit_pptx import inspect_structure
from slides import STYLES, make_slide

KEYS = ("recall", "precision", "image_only_share", "source_words")


def artifact(path: Path, source: Path) -> Artifact:
    """The artifact the metric sees: the gate's verdict and tree of the slide and its source
    figure, no annotation."""
    structure = inspect_structure(path)
    return Artifact(path=path, sha256=hashlib.sha256(path.read_bytes()).hexdigest(),
                    gate=structure.gate, structure=structure.tree, references={"figure": source})


def generated(suite: Path, figures: int, out: Path) -> list[tuple[str, Path, Path]]:
    """(kind, slide, source) for each of the first ``figures`` figures in every style."""
    tasks = suite_tasks(suite)
    items = []
    for index, task in enumerate(tasks[:figures]):
        figure = suite / task["inputs"]["figure"]["path"]
        annotation = json.loads((suite / task["inputs"]["annotation"]["path"]).read_text())
        for style in range(STYLES):
            slide = out / f"generated-{index}-{style}.pptx"
            make_slide(figure, annotation, style, 1000 + index * STYLES + style, slide)
            items.append((f"generated, style {style}", slide, figure))
    return items


def real(folder: Path, out: Path) -> list[tuple[str, Path, Path]]:
    """(kind, slide, source) for each real figure pasted whole and typed from its OCR lines."""
    items = []
    for figure in real_figures(folder):
        pasted, typed = Presentation(), Presentation()
        pasted.slides.add_slide(pasted.slide_layouts[6]).shapes.add_picture(
            str(figure), 0, 0, pasted.slide_width)
        shapes = typed.slides.add_slide(typed.slide_layouts[6]).shapes
        for row, line in enumerate(read_text(figure, max_side=1 << 16)):
            box = shapes.add_textbox(Emu(100_000 + row % 4 * 2_200_000),
                                     Emu(100_000 + row // 4 % 40 * 160_000),
                                     Emu(2_100_000), Emu(150_000))
            box.text_frame.text = line.text
        for kind, deck in (("pasted", pasted), ("typed", typed)):
            deck.save(out / f"real-{figure.stem}-{kind}.pptx")
            items.append((f"real, {kind}", out / f"real-{figure.stem}-{kind}.pptx", figure))
    return items


def compare(items: list[tuple[str, Path, Path]],
            settings: list[tuple[int, int]]) -> dict[str, Any]:
    """Per kind of slide and value: the mean at each (side, detector side), the largest change,
    how many moved."""
    values: dict[str, list[dict[str, float | None]]] = {}
    for side, detector in settings:
        engine(detector_side=detector)  # load the models before the first setting
        metric = TextRecall(ocr_max_side=side, ocr_detector_side=detector)
        values[f"{side}/{detector}"] = [
            {v.name: v.value for v in metric.compute(artifact(slide, source))}
            for _, slide, source in items]
    kinds: dict[str, list[int]] = defaultdict(list)
    for index, (kind, _, _) in enumerate(items):
        kinds[kind].append(index)
    old, new = values
    rows: dict[str, Any] = {}
    for kind, indices in kinds.items():
        row: dict[str, Any] = {"slides": len(indices)}
        for key in KEYS:
            pairs = [(values[old][i][key], values[new][i][key]) for i in indices]
            pairs = [(a, b) for a, b in pairs if a is not None and b is not None]
            if pairs:
                row[key] = {old: statistics.mean(a for a, _ in pairs),
                            new: statistics.mean(b for _, b in pairs),
                            "max_abs_change": max(abs(a - b) for a, b in pairs),
                            "changed": sum(a != b for a, b in pairs)}
        rows[kind] = row
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite", type=Path)
    parser.add_argument("--figures", type=int, default=20)
    parser.add_argument("--sides", type=int, nargs=2, default=[1600, 2000])
    parser.add_argument("--detector-sides", type=int, nargs=2,
                        default=[DETECTOR_SIDE, DETECTOR_SIDE])
    parser.add_argument("--real", type=Path, default=REAL_FIGURES)
    args = parser.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="refig-ocr-sides-") as tmp:
        items = generated(args.suite, args.figures, Path(tmp))
        if args.real.is_dir():
            items += real(args.real, Path(tmp))
        rows = compare(items, list(zip(args.sides, args.detector_sides, strict=True)))
    print(json.dumps({"load_average": [load_before, os.getloadavg()], "kinds": rows}, indent=1))


if __name__ == "__main__":
    main()
