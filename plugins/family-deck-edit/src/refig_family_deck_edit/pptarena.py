"""``refig suite build pptarena --from DIR``: import a local copy of the released PPTArena data.

The released layout: a case list (``evaluation_pairs_refined.json``), a list of objects with
``name``, ``prompt``, ``style_target``, ``original``, ``ground_truth``, ``category`` (a list) and
``edit_type``; the decks under ``Original/`` and ``GroundTruth/``; optionally a hard-subset list
(``hard_subset.json``, a list of case names, or ``.txt`` with one name a line). Each task records
where it came from and the sha256 of both decks. A case whose target is byte-identical to its
original, or whose original lies under ``GroundTruth/`` (or target under ``Original/``), is
refused: a public evaluation script passed the original where the ground truth belonged.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from refig.plugin import FileRefused, read_confined

from refig_family_deck_edit.cases import CaseError, DeckCase, write_case

CASE_LIST = "evaluation_pairs_refined.json"
HARD_LISTS = ("hard_subset.json", "hard_subset.txt", "hard_cases.json", "hard_cases.txt")
ORIGINAL_DIR, TARGET_DIR = "Original", "GroundTruth"
MAX_LIST_BYTES = 64 << 20
MAX_DECK_BYTES = 200 << 20


class ReleasedCase(BaseModel):
    """One entry of the released case list (unknown keys are kept in provenance, not refused)."""

    model_config = ConfigDict(extra="allow")

    name: str = Field(min_length=1)
    prompt: str = Field(min_length=1)
    style_target: str = ""
    original: str = Field(min_length=1)
    ground_truth: str = Field(min_length=1)
    category: list[str] | str = Field(default_factory=list)
    edit_type: str = ""

    @property
    def categories(self) -> tuple[str, ...]:
        return (self.category,) if isinstance(self.category, str) else tuple(self.category)


def task_id(name: str, taken: set[str]) -> str:
    """A task id from a case name: ``[A-Za-z0-9._+-]``, starting alphanumeric, unique."""
    base = re.sub(r"[^A-Za-z0-9._+-]+", "-", name).strip("-._+") or "case"
    candidate, k = base, 2
    while candidate in taken:
        candidate, k = f"{base}-{k}", k + 1
    taken.add(candidate)
    return candidate


def _lexical(path: Path) -> Path:
    """``path`` made absolute and normalised without resolving a link (a link is refused when
    read, never followed to decide where a deck is)."""
    return Path(os.path.abspath(path))


def _resolve(root: Path, value: str, folder: str) -> Path:
    """The deck ``value`` names: relative to the release, else by file name under ``folder``."""
    base = _lexical(root)
    for candidate in (root / value, root / folder / PurePosixPath(value).name):
        path = _lexical(candidate)
        if path.is_relative_to(base) and (path.is_file() or path.is_symlink()):
            return path
    raise CaseError(f"deck {value!r} is not in {root} (nor under {folder}/)",
                    fix="point --from at the unpacked release holding Original/ and GroundTruth/")


def _under(path: Path, root: Path, folder: str) -> bool:
    return path.is_relative_to(_lexical(root / folder))


def _read(path: Path, root: Path, max_bytes: int = MAX_DECK_BYTES) -> bytes:
    """A file of the release, read without following links: one pointing anywhere is refused."""
    try:
        return read_confined(path, root, max_bytes=max_bytes)
    except FileRefused as exc:
        raise CaseError(f"refused: {exc}",
                        fix="replace the link with the file itself, or remove the case") from None


def load_hard(root: Path, explicit: Path | None) -> set[str] | None:
    """The hard subset's case names, or None when the release has no list."""
    if explicit is not None:
        text = explicit.read_text(encoding="utf-8")
        path = explicit
    else:
        path = next((root / n for n in HARD_LISTS
                     if (root / n).is_file() or (root / n).is_symlink()), None)
        if path is None:
            return None
        text = _read(path, root, MAX_LIST_BYTES).decode("utf-8")
    if path.suffix == ".json":
        data = json.loads(text)
        names = data.get("cases", data.get("names", [])) if isinstance(data, dict) else data
        return {str(n) for n in names}
    return {line.strip() for line in text.splitlines() if line.strip()}


def released_case(root: Path, entry: ReleasedCase, ident: str, hard: set[str] | None,
                  case_list: Path) -> DeckCase:
    """One released entry as a case, refusing swapped paths and identical decks."""
    original = _resolve(root, entry.original, ORIGINAL_DIR)
    target = _resolve(root, entry.ground_truth, TARGET_DIR)
    if original == target:
        raise CaseError(f"case {entry.name}: original and ground truth are the same file "
                        f"({entry.original})")
    if _under(original, root, TARGET_DIR) or _under(target, root, ORIGINAL_DIR):
        raise CaseError(
            f"case {entry.name}: the paths are swapped (original {entry.original}, ground "
            f"truth {entry.ground_truth})",
            fix=f"the original belongs under {ORIGINAL_DIR}/ and the target under {TARGET_DIR}/")
    original_bytes, target_bytes = _read(original, root), _read(target, root)
    extra = {k: v for k, v in (entry.model_extra or {}).items()}
    case = DeckCase(
        id=ident, original=original_bytes, target=target_bytes, instruction=entry.prompt,
        style_target=entry.style_target, categories=entry.categories,
        edit_type=entry.edit_type, operations=(entry.edit_type,) if entry.edit_type else (),
        hard=bool(hard and entry.name in hard),
        meta={"name": entry.name, "provenance": {
            "dataset": "PPTArena", "case_list": str(case_list),
            "original": str(original.relative_to(_lexical(root))),
            "ground_truth": str(target.relative_to(_lexical(root))),
            "original_sha256": hashlib.sha256(original_bytes).hexdigest(),
            "target_sha256": hashlib.sha256(target_bytes).hexdigest(),
            **({"extra": extra} if extra else {})}},
    )
    case.check()
    return case


def read_case_list(path: Path, root: Path | None = None) -> list[ReleasedCase]:
    """The released case list, validated; a bad entry is an error naming its position. One
    found in the release (``root``) is read without following links."""
    if not (path.is_file() or (root is not None and path.is_symlink())):
        raise CaseError(f"no case list at {path}",
                        fix=f"the release holds {CASE_LIST}; or pass --cases FILE")
    if root is not None:
        raw = _read(path, root, MAX_LIST_BYTES)
    elif path.stat().st_size > MAX_LIST_BYTES:
        raise CaseError(f"{path} is over {MAX_LIST_BYTES >> 20} MB")
    else:
        raw = path.read_bytes()
    try:
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise CaseError(f"{path} is not valid JSON: {exc}") from exc
    entries = data.get("cases", data) if isinstance(data, dict) else data
    if not isinstance(entries, list):
        raise CaseError(f"{path} holds no list of cases")
    found = []
    for number, entry in enumerate(entries):
        try:
            found.append(ReleasedCase.model_validate(entry))
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}"
                                 for e in exc.errors(include_url=False))
            raise CaseError(f"{path}: case {number} is not a PPTArena case: {problems}") from exc
    return found


def build_pptarena(out: Path | str, source: Path | str, *, cases: Path | None = None,
                   hard: Path | None = None, skip_invalid: bool = False,
                   created_at: datetime | None = None, quiet: bool = True) -> Any:
    """Import the release at ``source`` into a suite at ``out``: every case is checked before
    any file is written, so a refused case leaves no half-written suite."""
    from refig.plugin import SuiteWriter, err, track

    root = Path(source)
    case_list = cases or root / CASE_LIST
    entries = read_case_list(case_list, None if cases else root)
    hard_names = load_hard(root, hard)
    taken: set[str] = set()
    accepted: list[DeckCase] = []
    refused: list[dict[str, str]] = []
    with track("reading PPTArena cases", len(entries), quiet=quiet) as tracker:
        for entry in entries:
            tracker.start()
            try:
                accepted.append(released_case(root, entry, task_id(entry.name, taken),
                                              hard_names, case_list))
            except CaseError as exc:
                if not skip_invalid:
                    raise
                refused.append({"name": entry.name, "reason": exc.message})
                err.print(f"[yellow]refused[/] {entry.name}: {exc.message}")
            tracker.finish()
    writer = SuiteWriter(out, name="pptarena", family="deck-edit", builder="pptarena",
                         params={"from": str(root), "cases": str(case_list)},
                         description=f"PPTArena imported from {root}", created_at=created_at)
    for case in accepted:
        write_case(writer, case)
    writer.set_params(refused=refused, hard_subset=sorted(hard_names) if hard_names else None)
    return writer.finish()
