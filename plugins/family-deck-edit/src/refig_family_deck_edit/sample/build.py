"""``build_deck_sample``: generated deck-edit tasks with exact targets and edit specifications."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from refig.plugin import UsageError, track

from refig_family_deck_edit.cases import DeckCase, write_case
from refig_family_deck_edit.sample.deck import build_deck
from refig_family_deck_edit.sample.package import deck_bytes
from refig_family_deck_edit.sample.recipes import NAMES, apply

FAMILY = "deck-edit"
CREATED_AT = datetime(2017, 6, 1, tzinfo=UTC)
MAX_TASKS = 1_000

try:
    GENERATOR_VERSION = version("refig-family-deck-edit")
except PackageNotFoundError:  # running from a source tree
    GENERATOR_VERSION = "0.0.0"


def _seed(seed: int, index: int) -> int:
    digest = hashlib.sha256(f"refig-deck-sample:{seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def generate_case(seed: int, index: int, recipe: str | None = None) -> DeckCase:
    """Task ``index`` of the suite of ``seed`` (recipe ``index`` in turn unless one is named):
    independent of how many tasks are built."""
    recipe = recipe or NAMES[index % len(NAMES)]
    original, _ = build_deck(random.Random(_seed(seed, index)))
    prs, plan = build_deck(random.Random(_seed(seed, index)))
    edit = apply(recipe, prs, plan, random.Random(_seed(seed, index) + 1))
    spec: dict[str, Any] = {**edit.spec(), "recipe": recipe,
                            "generator": {"name": "refig-family-deck-edit",
                                          "version": GENERATOR_VERSION, "seed": seed,
                                          "index": index}}
    return DeckCase(
        id=f"deck-{index:03d}", original=deck_bytes(original), target=deck_bytes(prs),
        instruction=edit.instruction, style_target=edit.style_target,
        categories=edit.categories, edit_type=edit.operations[0], operations=edit.operations,
        spec=spec, meta={"recipe": recipe, "slides": len(original.slides),
                         "cross_slide": len({e["slide"] for e in edit.expect}) > 1},
    )


def build_deck_sample(out: Path | str, n: int | None = None, seed: int = 0, *,
                      recipes: Sequence[str] = (), created_at: datetime | None = None,
                      quiet: bool = True) -> Any:
    """Generate ``n`` tasks (default: one per edit recipe, or per recipe named) at ``out``."""
    from refig.plugin import SuiteWriter

    unknown = [r for r in recipes if r not in NAMES]
    if unknown:
        raise UsageError(f"unknown edit recipe {', '.join(unknown)}",
                         fix=f"choose among: {', '.join(NAMES)}")
    cycle = tuple(recipes) or NAMES
    n = len(cycle) if n is None else n
    if not 1 <= n <= MAX_TASKS:
        raise UsageError(f"--n must be between 1 and {MAX_TASKS}, not {n}")
    writer = SuiteWriter(
        out, name="deck-sample", family=FAMILY, builder="deck-sample",
        params={"n": n, "seed": seed, "recipes": list(recipes),
                "generator_version": GENERATOR_VERSION},
        description=f"{n} generated deck edits with exact targets (seed {seed})",
        created_at=created_at or CREATED_AT,
    )
    with track("generating deck edits", n, quiet=quiet) as tracker:
        for index in range(n):
            tracker.start()
            write_case(writer, generate_case(seed, index, cycle[index % len(cycle)]))
            tracker.finish()
    return writer.finish()
