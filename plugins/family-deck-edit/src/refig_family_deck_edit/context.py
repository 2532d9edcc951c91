"""What evaluating one edited deck needs besides the deck itself: the original's and target's
structures and renderings, the structural comparison and the slide selection, built once per
artifact and cached in the process."""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from refig_family_deck_edit.cases import DECK, EDIT_SPEC, TARGET
from refig_family_deck_edit.compare import EditComparison, compare
from refig_family_deck_edit.inspect_deck import inspect_deck
from refig_family_deck_edit.oracle import OracleVerdict, oracle
from refig_family_deck_edit.selection import Selection, select_slides
from refig_family_deck_edit.structure import DeckStructure


class ContextError(Exception):
    """A reference deck that cannot be read (the suite is broken, not the agent's deck)."""


@lru_cache(maxsize=256)
def _structure(path: str, mtime_ns: int, size: int) -> DeckStructure:
    verdict = inspect_deck(path)
    if verdict.structure is None:
        raise ContextError(f"reference deck {path} is unreadable: {verdict.reason}: "
                           f"{verdict.detail}")
    return verdict.structure


def reference_structure(path: Path) -> DeckStructure:
    """The structure of a reference deck, read once per file version."""
    stat = path.stat()
    return _structure(str(path.resolve()), stat.st_mtime_ns, stat.st_size)


def as_structure(value: Any) -> DeckStructure | None:
    """The artifact's structure, parsed when it arrives as a stored dict."""
    if value is None or isinstance(value, DeckStructure):
        return value
    return DeckStructure.model_validate(value)


@dataclass(frozen=True)
class DeckContext:
    """Original, target and prediction with their comparison (and pages when rendered)."""

    original: DeckStructure
    target: DeckStructure
    prediction: DeckStructure
    comparison: EditComparison
    spec: Mapping[str, Any] | None
    pages: Mapping[str, tuple[Path, ...]]
    selection: Selection | None

    @property
    def oracle(self) -> OracleVerdict | None:
        """The spec's verdict, on generated tasks."""
        return oracle(self.original, self.prediction, self.spec) if self.spec else None


_lock = threading.Lock()


def artifact_context(artifact: Any) -> DeckContext:
    """The context of an evaluated artifact: the references' renderings the run stored
    (``Artifact.reference_pages``), else rendered once into the family's cache."""
    from refig_family_deck_edit.references import reference_pages

    stored = getattr(artifact, "reference_pages", None) or {}
    if stored.get(DECK) and stored.get(TARGET):
        return build_context(artifact.structure, artifact.references, artifact.pages,
                             stored_pages=stored)
    return build_context(artifact.structure, artifact.references, artifact.pages,
                         reference_pages=reference_pages)


def build_context(prediction: Any, references: Mapping[str, Path],
                  pages: tuple[Path, ...] = (), *, reference_pages: Any = None,
                  stored_pages: Mapping[str, tuple[Path, ...]] | None = None) -> DeckContext:
    """The context of one artifact; the references' pages are ``stored_pages`` (by input role)
    or made by ``reference_pages(path) -> pages`` (neither: no slide selection by SSIM,
    structural selection only)."""
    structure = as_structure(prediction)
    if structure is None:
        raise ContextError("the edited deck has no structure (it did not pass the gate)")
    original_path, target_path = references.get(DECK), references.get(TARGET)
    if original_path is None or target_path is None:
        raise ContextError("the task has no original or no target deck")
    original = reference_structure(original_path)
    target = reference_structure(target_path)
    spec_path = references.get(EDIT_SPEC)
    spec = json.loads(spec_path.read_text(encoding="utf-8")) if spec_path else None
    comparison = compare(original, target, structure)
    all_pages: dict[str, tuple[Path, ...]] = {"prediction": tuple(pages)}
    if stored_pages and pages:
        all_pages["original"] = tuple(stored_pages[DECK])
        all_pages["target"] = tuple(stored_pages[TARGET])
    elif reference_pages is not None and pages:
        with _lock:
            all_pages["original"] = tuple(reference_pages(original_path))
            all_pages["target"] = tuple(reference_pages(target_path))
    selection = select_slides(original, target, structure, comparison, all_pages)
    return DeckContext(original, target, structure, comparison, spec, all_pages, selection)
