"""OCR recall against the generated suite's exact labels at several longest sides, and its cost.

Recall is the share of the annotation's words (node text, group, edge and panel titles, as
``refig_toolkit_pptx.word_tokens`` reads them) that OCR returns, counted with multiplicity; the
knee is the smallest side whose recall is within ``TOLERANCE`` of the best side's.
:func:`real_agreement` adds what labels cannot say for real figures (smaller text): the share of
the words OCR reads in the figure handed over whole that it still reads at each side. "Whole" is
not full resolution: RapidOCR shrinks anything longer than its ``max_side_len`` (2000 px) itself,
so the reference is its own bilinear shrink, and agreement with it is no recall.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

from corpus import real_figures, suite_tasks
from PIL import Image
from refig_toolkit_imaging import open_image
from refig_toolkit_imaging.ocr import engine, read_text
from refig_toolkit_pptx import word_tokens

#: A side whose recall is this close to the best counts as keeping recall.
TOLERANCE = 0.01


def label_words(annotation: dict[str, Any]) -> Counter[str]:
    """Every word the figure shows, from its annotation."""
    texts = [node.get("text") or "" for node in annotation.get("nodes", [])]
    texts += [g.get("title") or "" for g in annotation.get("groups", [])]
    texts += [e.get("label") or "" for e in annotation.get("edges", [])]
    texts += [p.get("title") or "" for p in annotation.get("panels", [])]
    return Counter(token for text in texts for token in word_tokens(text))


def labelled_figures(suite: Path, figures: int) -> list[tuple[Image.Image, Counter[str]]]:
    """The first ``figures`` of the suite, each with the words its annotation holds."""
    out = []
    for task in suite_tasks(suite)[:figures]:
        inputs = task["inputs"]
        labels = label_words(json.loads((suite / inputs["annotation"]["path"]).read_text()))
        out.append((open_image(suite / inputs["figure"]["path"]), labels))
    return out


def scores(figures: list[tuple[Image.Image, Counter[str]]], **options: int) -> dict[str, float]:
    """Recall and precision of OCR (``read_text`` with ``options``) against the labels, and CPU
    seconds (all of onnxruntime's threads: a shared machine's load hardly changes them) per
    figure and per megapixel."""
    found = wanted = read_words = 0
    seconds = megapixels = 0.0
    for image, labels in figures:
        started = time.process_time()
        lines = read_text(image, **options)
        seconds += time.process_time() - started
        megapixels += image.width * image.height / 1e6
        read = Counter(token for line in lines for token in word_tokens(line.text))
        found += sum((labels & read).values())
        wanted += sum(labels.values())
        read_words += sum(read.values())
    return {"recall": found / wanted if wanted else 0.0,
            "precision": found / read_words if read_words else 0.0,
            "cpu_seconds_per_figure": seconds / max(1, len(figures)),
            "cpu_seconds_per_megapixel": seconds / max(1e-9, megapixels)}


def measure(suite: Path, sides: list[int], figures: int) -> dict[str, Any]:
    """:func:`scores` at each longest side over the first ``figures``, and the knee."""
    labelled = labelled_figures(suite, figures)
    engine()  # load the models before timing
    rows = {side: scores(labelled, max_side=side) for side in sides}
    best = max(row["recall"] for row in rows.values())
    knee = min(side for side, row in rows.items() if row["recall"] >= best - TOLERANCE)
    return {"figures": figures, "sides": rows, "knee": knee}


def detector_sides(suite: Path, sides: list[int], figures: int, max_side: int,
                   widths: tuple[int, ...] = (0, 1200, 600)) -> dict[str, Any]:
    """:func:`scores` at each of the detector's sides (``refig_toolkit_imaging.ocr.ScaledDetector``;
    0: RapidOCR's own rule for every image), OCR reading at ``max_side``, over the first ``figures``
    as they are (width 0) and shrunk to each of ``widths`` px wide, as a slide's pictures often
    are."""
    labelled = labelled_figures(suite, figures)
    rows: dict[int, dict[int, dict[str, float]]] = {}
    for width in widths:
        shown = labelled if not width else [
            (image.resize((width, max(1, round(image.height * width / image.width))),
                          Image.Resampling.LANCZOS), labels) for image, labels in labelled]
        rows[width] = {}
        for side in sides:
            engine(detector_side=side)  # load the models before timing
            rows[width][side] = scores(shown, max_side=max_side, detector_side=side)
    return {"figures": figures, "max_side": max_side, "widths": rows}


def real_agreement(folder: Path, sides: list[int]) -> dict[str, Any]:
    """Per side, the share of the words OCR reads in the figure handed over whole that it keeps,
    and CPU seconds per figure."""
    figures = real_figures(folder)
    engine()
    kept = dict.fromkeys(sides, 0)
    cpu = dict.fromkeys(sides, 0.0)
    total = 0
    for path in figures:
        image = open_image(path)
        reference = Counter(token for line in read_text(image, max_side=1 << 16)
                            for token in word_tokens(line.text))
        total += sum(reference.values())
        for side in sides:
            started = time.process_time()
            lines = read_text(image, max_side=side)
            cpu[side] += time.process_time() - started
            read = Counter(token for line in lines for token in word_tokens(line.text))
            kept[side] += sum((reference & read).values())
    return {"figures": len(figures), "words": total,
            "sides": {side: {"share_of_full_resolution_words": kept[side] / max(1, total),
                             "cpu_seconds_per_figure": cpu[side] / max(1, len(figures))}
                      for side in sides}}


def arena_ab(paths: list[Path], side: int = 1600) -> dict[str, Any]:
    """CPU seconds per source megapixel of RapidOCR's own sessions (memory arena off) against
    :func:`refig_toolkit_imaging.ocr.engine`'s (arena on), alternating per figure, and how many
    figures' lines differ at all."""
    for arena in (False, True):
        engine(1, arena=arena)  # load the models before timing
    cpu = {False: 0.0, True: 0.0}
    differing = 0
    megapixels = 0.0
    for index, path in enumerate(paths):
        image = open_image(path)
        megapixels += image.width * image.height / 1e6
        lines = {}
        for arena in (False, True) if index % 2 == 0 else (True, False):
            started = time.process_time()
            lines[arena] = read_text(image, max_side=side, threads=1, arena=arena)
            cpu[arena] += time.process_time() - started
        differing += lines[False] != lines[True]
    return {"figures": len(paths), "figures_differing": differing,
            "arena_off_cpu_seconds_per_megapixel": cpu[False] / megapixels,
            "arena_on_cpu_seconds_per_megapixel": cpu[True] / megapixels}


if __name__ == "__main__":
    import os
    import sys

    suite, real = Path(sys.argv[1]), Path(sys.argv[2])
    tasks = suite_tasks(suite)
    figures = [suite / task["inputs"]["figure"]["path"] for task in tasks]
    figures += real_figures(real)
    print(json.dumps({"load_before": os.getloadavg(), **arena_ab(figures),
                      "load_after": os.getloadavg()}, indent=1))
