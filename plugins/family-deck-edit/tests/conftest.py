"""Shared fixtures: generated cases written to disk and read back."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from refig_family_deck_edit.inspect_deck import inspect_deck
from refig_family_deck_edit.sample.build import generate_case
from refig_family_deck_edit.sample.recipes import NAMES
from refig_family_deck_edit.structure import DeckStructure

REAL = Path(__file__).resolve().parents[3] / "../shared/data/pptx-real"

#: Generated cases are deterministic, so the tests share one build of each.
case_of = functools.cache(generate_case)


def read(path: Path) -> DeckStructure:
    verdict = inspect_deck(path)
    assert verdict.passed, (verdict.reason, verdict.detail)
    assert verdict.structure is not None
    return verdict.structure


@pytest.fixture
def write_case(tmp_path: Path):
    """``write_case(recipe) -> (case, original path, target path)``."""

    def write(recipe: str, seed: int = 0):
        case = case_of(seed, NAMES.index(recipe))
        folder = tmp_path / case.id
        folder.mkdir(exist_ok=True)
        original, target = folder / "original.pptx", folder / "target.pptx"
        original.write_bytes(case.original)
        target.write_bytes(case.target)
        return case, original, target

    return write
