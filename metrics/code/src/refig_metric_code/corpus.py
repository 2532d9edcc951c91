"""The reference programs of a suite, by language: what CrystalBLEU's trivial n-grams are
learned from (reference code only, never a generated program)."""

from __future__ import annotations

import functools
import json
from pathlib import Path

from refig_metric_code.crystal import TRIVIAL_K, trivial_ngrams
from refig_metric_code.languages import Language
from refig_metric_code.tokens import code_tokens

SUITE_FILE, TASKS_FILE = "suite.json", "tasks.jsonl"


def suite_root(reference: Path) -> Path | None:
    """The suite directory holding ``reference`` (the nearest parent with ``suite.json``)."""
    for parent in reference.resolve().parents:
        if (parent / SUITE_FILE).is_file() and (parent / TASKS_FILE).is_file():
            return parent
    return None


def reference_programs(root: Path, language: Language) -> list[str]:
    """Every reference program of ``language`` in the suite at ``root``."""
    programs = []
    for line in (root / TASKS_FILE).read_text("utf-8", errors="replace").splitlines():
        if not line.strip():
            continue
        task = json.loads(line)
        if str(task.get("params", {}).get("language", "")).lower() != language.value:
            continue
        asset = task.get("inputs", {}).get("reference_code")
        path = (root / asset["path"]).resolve() if asset else None
        if path is not None and path.is_relative_to(root) and path.is_file():
            programs.append(path.read_text("utf-8", errors="replace"))
    return programs


@functools.lru_cache(maxsize=32)
def _learned(root: Path, language: Language, stamp: int, k: int) -> dict[tuple, int]:
    streams = [code_tokens(p, language) for p in reference_programs(root, language)]
    return trivial_ngrams(streams, k)


def suite_trivial_ngrams(reference: Path, language: Language, k: int = TRIVIAL_K
                         ) -> dict[tuple, int]:
    """The trivial n-grams of the suite ``reference`` belongs to (of that program alone when it
    lies in no suite), cached per suite and tasks-file version."""
    root = suite_root(reference)
    if root is None:
        return trivial_ngrams([code_tokens(reference.read_text("utf-8", "replace"), language)], k)
    return _learned(root, language, (root / TASKS_FILE).stat().st_mtime_ns, k)
