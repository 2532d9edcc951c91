"""``build_sample``: a suite of generated figures, each with its exact annotation."""

from __future__ import annotations

import hashlib
import random
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from refig.plugin import Suite, SuiteWriter, UsageError, track
from refig_toolkit_imaging import png_bytes

from refig_suite_sample.annotation import annotate
from refig_suite_sample.difficulty import Difficulty
from refig_suite_sample.draw import render
from refig_suite_sample.fonts import available_families, font_set
from refig_suite_sample.layout import generate

#: The fixed creation time of every sample suite, so a seed always yields the same bytes.
CREATED_AT = datetime(2017, 6, 1, tzinfo=UTC)
MAX_FIGURES = 10_000
#: The widths a figure may be drawn at: below 800 px its labels are under 9 px tall.
MIN_WIDTH, MAX_WIDTH = 800, 6000

try:
    GENERATOR_VERSION = version("refig-suite-sample")
except PackageNotFoundError:  # running from a source tree
    GENERATOR_VERSION = "0.0.0"


def figure_seed(seed: int, index: int, difficulty: str) -> int:
    """The seed of one figure: independent of ``n``, so a larger suite extends a smaller one."""
    digest = hashlib.sha256(f"refig-sample:{seed}:{difficulty}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def build_sample(out: Path | str, n: int = 6, seed: int = 0, difficulty: str = "medium", *,
                 created_at: datetime | None = None, quiet: bool = True,
                 width: tuple[int, int] | None = None) -> Suite:
    """Generate ``n`` figures into a suite at ``out``; the same arguments give the same bytes.

    ``width`` (low, high): draw each figure's width from that range instead of the
    difficulty's, its layout scaled to it (a benchmark's corpus of given sizes). This is what
    ``refig demo`` calls for its built-in sample.
    """
    try:
        level = Difficulty(difficulty)
    except ValueError:
        raise UsageError(
            f"unknown difficulty {difficulty!r}; choose easy, medium or hard"
        ) from None
    if not 1 <= n <= MAX_FIGURES:
        raise UsageError(f"--n must be between 1 and {MAX_FIGURES}, not {n}")
    params: dict[str, object] = {"n": n, "seed": seed, "difficulty": level.value,
                                 "generator_version": GENERATOR_VERSION}
    if width is not None:
        low, high = width
        if not MIN_WIDTH <= low <= high <= MAX_WIDTH:
            raise UsageError(f"--width {low} {high}: give two widths with "
                             f"{MIN_WIDTH} <= low <= high <= {MAX_WIDTH} pixels")
        params["width"] = [low, high]
    families = available_families()
    writer = SuiteWriter(
        out, name="sample", family="figure-to-slide", builder="sample",
        params=params,
        description=f"{n} generated {level.value} overview figures with exact annotations "
                    f"(seed {seed})",
        created_at=created_at or CREATED_AT,
    )
    with track("generating figures", n, quiet=quiet) as tracker:
        for index in range(n):
            tracker.start()
            rng = random.Random(figure_seed(seed, index, level.value))
            fonts = font_set(rng.choice(families) if families else None)
            figure = generate(rng, level, fonts, width=width)
            image = png_bytes(render(figure))
            task_id = f"sample-{index:03d}"
            generator = {"name": "refig-suite-sample", "version": GENERATOR_VERSION,
                         "seed": seed, "index": index, "difficulty": level.value}
            writer.add(
                task_id, f"{task_id}.png", image, annotation=annotate(figure, generator),
                meta={"difficulty": level.value, "field": "generated", "width": figure.width,
                      "height": figure.height, "font": fonts.family,
                      "nodes": len(figure.nodes), "edges": len(figure.edges),
                      "groups": len(figure.groups), "panels": len(figure.panels)},
            )
            tracker.finish()
    return writer.finish()
