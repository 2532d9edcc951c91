"""The reference programs of a suite, by language: what CrystalBLEU's trivial n-grams are
learned from (reference code only, never a generated program).

A reference lies either in a suite directory (``suite.json`` beside ``tasks.jsonl``) or, when
``refig evaluate`` scores a run, in the run's object store: then the suite is the run's tasks."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

from refig_metric_code.crystal import TRIVIAL_K, crystal_tokens, trivial_ngrams
from refig_metric_code.languages import Language

SUITE_FILE, TASKS_FILE = "suite.json", "tasks.jsonl"
RUN_DB, RUN_OBJECTS = "refig.db", "objects"


def suite_root(reference: Path) -> Path | None:
    """The suite or run directory holding ``reference`` (the nearest parent with ``suite.json``
    and ``tasks.jsonl``, or with a run's ``refig.db`` and ``objects/``)."""
    for parent in reference.resolve().parents:
        if (parent / SUITE_FILE).is_file() and (parent / TASKS_FILE).is_file():
            return parent
        if (parent / RUN_DB).is_file() and (parent / RUN_OBJECTS).is_dir():
            return parent
    return None


def _is_run(root: Path) -> bool:
    return (root / RUN_DB).is_file() and not (root / TASKS_FILE).is_file()


def run_reference_programs(root: Path, language: Language) -> list[str]:
    """Every reference program of ``language`` among the tasks of the run at ``root``."""
    from refig.plugin import Task
    from refig_toolkit_analysis import RunStore

    store = RunStore.open(root, readonly=True)
    try:
        programs = []
        for task in store.iter(Task):
            asset = task.inputs.get("reference_code")
            if asset is None or str(task.params.get("language", "")).lower() != language.value:
                continue
            path = store.objects.path(asset.sha256)
            if path.is_file():
                programs.append(path.read_text("utf-8", errors="replace"))
        return programs
    finally:
        store.close()


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


@dataclass(frozen=True)
class Ignored:
    """CrystalBLEU's ignore list for one language of a suite, and how many reference programs
    it was learned from (what the report names when the list covers a reference)."""

    ngrams: dict[tuple, int]
    references: int


@functools.lru_cache(maxsize=32)
def _learned(root: Path, language: Language, stamp: int, k: int) -> Ignored:
    programs = (run_reference_programs if _is_run(root) else reference_programs)(root, language)
    streams = [crystal_tokens(p, language) for p in programs]
    return Ignored(trivial_ngrams(streams, k), len(streams))


def suite_trivial_ngrams(reference: Path, language: Language, k: int = TRIVIAL_K) -> Ignored:
    """The trivial n-grams of the suite or run ``reference`` belongs to (of that program alone
    when it lies in neither), cached per suite and tasks-file version (a run's tasks are fixed
    when it is created)."""
    root = suite_root(reference)
    if root is None:
        alone = crystal_tokens(reference.read_text("utf-8", "replace"), language)
        return Ignored(trivial_ngrams([alone], k), 1)
    stamp = 0 if _is_run(root) else (root / TASKS_FILE).stat().st_mtime_ns
    return _learned(root, language, stamp, k)
