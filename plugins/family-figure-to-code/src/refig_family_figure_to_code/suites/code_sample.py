"""`refig suite build code-sample`: seeded tasks in all four languages across the seven
categories, each reference program rendered by the real toolchain to make the reference image.

The same seed gives the same programs; the images are as deterministic as the toolchains
(matplotlib, R, Octave and xelatex on one machine give the same pixels run after run). A
program that fails to run fails the build, naming the program and the interpreter's message.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

from refig.plugin import RefigError, Suite, SuiteWriter

from refig_family_figure_to_code.execution import execute
from refig_family_figure_to_code.languages import Language
from refig_family_figure_to_code.sample.data import CATEGORIES, sample_data
from refig_family_figure_to_code.sample.programs import data_files, reference_program
from refig_family_figure_to_code.suites.tasks import TaskDraft, set_tiers, write_task

WIDTH, HEIGHT = 640, 480


def build_code_sample(out: Path | str, *, seed: int = 0, per_category: int = 1,
                      languages: Sequence[str] = tuple(Language),
                      categories: Sequence[str] = CATEGORIES,
                      progress: Callable[[str], None] | None = None,
                      n: int | None = None, quiet: bool = True) -> Suite:
    """Build the suite into ``out``: ``per_category`` tasks per language and category, or with
    ``n`` (as ``refig demo`` asks) the first ``n`` of the languages and categories taken in turn,
    so every language appears from four tasks on. It prints nothing itself (``quiet`` is the
    suite builders' common keyword); ``progress`` hears each task id."""
    chosen = [Language.parse(str(x)) for x in languages]
    unknown = sorted(set(categories) - set(CATEGORIES))
    if unknown:
        raise RefigError(f"unknown categories {unknown}; choose from {', '.join(CATEGORIES)}")
    if n is None:
        cells = [(language, category, index) for language in chosen for category in categories
                 for index in range(per_category)]
    else:
        cells = [(chosen[i % len(chosen)], categories[i % len(categories)], 0) for i in range(n)]
    drafts: list[TaskDraft] = []
    with tempfile.TemporaryDirectory(prefix="refig-code-sample-") as scratch:
        for language, category, index in cells:
            data = sample_data(category, seed * 1000 + index)
            drafts.append(_render(language, category, index, seed, data, Path(scratch)))
            if progress:
                progress(drafts[-1].id)
        set_tiers(drafts, Path(scratch))
    writer = SuiteWriter(out, name="code-sample", family="figure-to-code", builder="code-sample",
                         params={"seed": seed, "per_category": per_category,
                                 "languages": [x.value for x in chosen],
                                 "categories": list(categories)},
                         description="Generated plotting tasks in Python, MATLAB, R and LaTeX.",
                         created_at=datetime(2026, 1, 1, tzinfo=UTC))
    for draft in drafts:
        write_task(writer, draft)
    return writer.finish()


def _render(language: Language, category: str, index: int, seed: int, data, scratch: Path
            ) -> TaskDraft:
    program = reference_program(data, language)
    files = data_files(data)
    inputs = {}
    for name, content in files.items():
        path = scratch / f"{language}-{category}-{index}-{name}"
        path.write_bytes(content)
        inputs[name] = path
    result = execute(program, language, inputs=inputs, width=WIDTH, height=HEIGHT)
    task_id = f"{language.value}-{category}-{seed}-{index}"
    if result.png is None:
        detail = result.error.message if result.error else "no image"
        raise RefigError(f"the reference program of {task_id} did not run: {detail}",
                         fix="run `refig doctor` to see which toolchain is missing")
    return TaskDraft(id=task_id, language=language, figure=result.png, figure_name="figure.png",
                     code=program, category=category, data=files,
                     params={"seed": seed},
                     meta={"provenance": {"builder": "code-sample", "seed": seed,
                                          "toolchain": result.toolchain}})
