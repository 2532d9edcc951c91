"""A folder in PPTArena's released layout, built by the tests from generated edits."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from refig_family_deck_edit.sample.build import generate_case
from refig_family_deck_edit.sample.recipes import NAMES

RECIPES = ("table-cell", "normalise-subtitles", "notes-then-delete-staging", "bring-to-front")


def make_release(root: Path, recipes: tuple[str, ...] = RECIPES, *, hard: tuple[str, ...] = (),
                 entries: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Write ``Original/``, ``GroundTruth/`` and ``evaluation_pairs_refined.json``."""
    (root / "Original").mkdir(parents=True, exist_ok=True)
    (root / "GroundTruth").mkdir(exist_ok=True)
    cases = []
    for k, recipe in enumerate(recipes):
        case = generate_case(11, NAMES.index(recipe))
        name = f"case {k + 1}: {recipe}"
        (root / "Original" / f"deck{k + 1}.pptx").write_bytes(case.original)
        (root / "GroundTruth" / f"deck{k + 1}_gt.pptx").write_bytes(case.target)
        cases.append({"name": name, "prompt": case.instruction, "style_target": case.style_target,
                      "original": f"Original/deck{k + 1}.pptx",
                      "ground_truth": f"GroundTruth/deck{k + 1}_gt.pptx",
                      "category": list(case.categories), "edit_type": case.operations[0],
                      "slides_edited": len({e["slide"] for e in case.spec["expect"]})})
    cases += entries or []
    (root / "evaluation_pairs_refined.json").write_text(json.dumps(cases, indent=1))
    if hard:
        (root / "hard_subset.json").write_text(json.dumps(list(hard)))
    return cases
