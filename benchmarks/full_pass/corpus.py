"""The benchmark's corpus: a generated suite (``refig suite build sample``), then a run holding
``per_source`` slides of every figure, written by a harness registered in-process that draws each
slide from the figure's exact annotation (:mod:`slides`), so no agent or model is involved. The
run can also hide the annotations from the metrics (:func:`unlabelled`), as a suite of real
figures has none."""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from refig.builtins.executors import LocalExecutor
from refig.models import Task
from refig.plugins import Selection
from refig.protocols import AttemptContext, Harness, HarnessResult, Prompt
from refig.records import Deliverable, ExecutorRecord, HarnessRecord, WorkflowRecord
from refig.running.runner import RunRequest, execute
from refig.suite import Suite
from slides import STYLES, make_slide

SLIDE_FILE = "slide.pptx"  # figure-to-slide's deliverable

#: The range the corpus's figure widths are drawn from: with the medium preset's aspects (1.6 to
#: 3.2) a median about 1.5 megapixels, 0.3 to 4.3 over 50 figures, as issue 18 asks
#: ("real-figure-like sizes, a median around 1.5 megapixels"); the preset alone gives 2.2.
FIGURE_WIDTH = (900, 2800)
#: The real figures beside the checkout (``../shared`` from the repository's root), if present.
REAL_FIGURES = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "real-figures"


def suite_tasks(suite: Path) -> list[dict[str, Any]]:
    """The suite's tasks, as ``tasks.jsonl`` holds them."""
    return [json.loads(line) for line in (suite / "tasks.jsonl").read_text().splitlines()]


def build_suite(refig: str, out: Path, sources: int, seed: int,
                width: tuple[int, int] = FIGURE_WIDTH) -> dict[str, Any]:
    """``refig suite build sample`` of ``sources`` medium figures ``width`` px wide; their
    sizes."""
    subprocess.run([refig, "suite", "build", "sample", "--out", str(out), "--n", str(sources),
                    "--seed", str(seed), "--difficulty", "medium", "--width", str(width[0]),
                    str(width[1]), "-q"], check=True, stdout=subprocess.DEVNULL)
    tasks = suite_tasks(out)
    return {"figure_width": list(width),
            **sizes([(t["meta"]["width"], t["meta"]["height"]) for t in tasks])}


def sizes(shapes: list[tuple[int, int]]) -> dict[str, Any]:
    """How many figures of these (width, height) pixels, and their megapixels."""
    pixels = [width * height / 1e6 for width, height in shapes]
    return {"sources": len(pixels), "median_megapixels": round(statistics.median(pixels), 2),
            "min_megapixels": round(min(pixels), 2), "max_megapixels": round(max(pixels), 2),
            "total_megapixels": round(sum(pixels), 2)}


def real_figures(folder: Path) -> list[Path]:
    """The figures in ``folder`` (PNG and JPEG), sorted by name."""
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in (".png", ".jpg", ".jpeg"))


def real_sizes(folder: Path) -> dict[str, Any]:
    """The sizes of the real figures in ``folder`` (:func:`real_figures`), beside the corpus's."""
    from PIL import Image

    shapes = []
    for path in real_figures(folder):
        with Image.open(path) as image:
            shapes.append(image.size)
    return sizes(shapes) if shapes else {}


class _Workflow:
    def prepare(self, workspace: Path, task: Task, harness: str) -> Prompt:
        return Prompt(text="benchmark", version="bench.v1")


def unlabelled(suite: Path, out: Path) -> Path:
    """A copy of ``suite`` at ``out`` whose tasks carry no annotation, so the text metric reads
    every source by OCR, once per source, as for real figures (the figures are hard links)."""
    shutil.copytree(suite / "assets", out / "assets", copy_function=os.link)
    shutil.copy(suite / "suite.json", out / "suite.json")
    tasks = suite_tasks(suite)
    for task in tasks:
        del task["inputs"]["annotation"]
    (out / "tasks.jsonl").write_text("".join(json.dumps(task) + "\n" for task in tasks))
    return out


class _Drafter(Harness):
    """A harness that draws the slide of style ``variant % 10`` from the task's annotation
    (``annotations``: each task's annotation file, by task id)."""

    def __init__(self, annotations: dict[str, Path], variant: int):
        self.annotations, self.variant = annotations, variant

    def run(self, ctx: AttemptContext) -> HarnessResult:
        annotation = json.loads(self.annotations[ctx.task.id].read_text())
        out = ctx.workspace / SLIDE_FILE
        make_slide(ctx.source, annotation, self.variant % STYLES, self.variant, out)
        return HarnessResult(exit_code=0, outputs={"slide": out})


def make_run(suite: Path, run: Path, per_source: int, jobs: int,
             tasks_from: Path | None = None) -> int:
    """Attempts of ``per_source`` configurations over the suite into ``run``, drawn from its
    annotations; the run's tasks are ``tasks_from``'s (``suite`` unless given: e.g. its
    :func:`unlabelled` copy). How many."""
    annotations = {task["id"]: suite / task["inputs"]["annotation"]["path"]
                   for task in suite_tasks(suite)}
    workflow = WorkflowRecord(name="bench", description="benchmark",
                              factory=lambda **_: _Workflow())
    executor = ExecutorRecord(name="local", description="local",
                              factory=lambda **_: LocalExecutor())
    loaded = Suite.load(tasks_from or suite)
    made = 0
    with tempfile.TemporaryDirectory(prefix="refig-bench-attempts-") as attempts:
        for variant in range(per_source):
            drafter = _Drafter(annotations, variant)
            record = HarnessRecord(name=f"draft-{variant}", description="benchmark drafter",
                                   factory=lambda drafter=drafter, **_: drafter,
                                   needs_model=False)
            request = RunRequest(
                suite=loaded, out=run, harness=Selection(record, record.name),
                workflow=Selection(workflow, "bench"), executor=Selection(executor, "local"),
                jobs=jobs, timeout=120, sandbox="none", workspace_root=Path(attempts),
                deliverables=(Deliverable("slide", SLIDE_FILE, primary=True),),
            )
            summary = execute(request, quiet=True)
            made += summary.succeeded
    return made
