"""Importing the released PPTArena layout: provenance, the hard subset, and refused cases."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from refig_family_deck_edit.cases import CaseError
from refig_family_deck_edit.pptarena import load_hard, read_case_list, released_case, task_id

from .release import make_release


def _flat(text: str) -> str:
    """``text`` without whitespace: the console wraps long lines wherever the width ends."""
    return "".join(text.split())


def _cases(root: Path):
    entries = read_case_list(root / "evaluation_pairs_refined.json")
    hard = load_hard(root, None)
    taken: set[str] = set()
    return [released_case(root, e, task_id(e.name, taken), hard,
                          root / "evaluation_pairs_refined.json") for e in entries]


def test_released_cases_keep_their_facts_and_provenance(tmp_path):
    released = make_release(tmp_path, hard=("case 3: notes-then-delete-staging",))
    cases = _cases(tmp_path)
    assert [c.id for c in cases] == ["case-1-table-cell", "case-2-normalise-subtitles",
                                     "case-3-notes-then-delete-staging", "case-4-bring-to-front"]
    first = cases[0]
    assert first.instruction == released[0]["prompt"]
    assert first.style_target == released[0]["style_target"]
    assert first.categories == ("Content",) and first.edit_type == "tables"
    origin = first.meta["provenance"]
    assert origin["original"] == "Original/deck1.pptx"
    assert origin["target_sha256"] == hashlib.sha256(
        (tmp_path / "GroundTruth/deck1_gt.pptx").read_bytes()).hexdigest()
    assert origin["extra"] == {"slides_edited": 1}
    assert [c.hard for c in cases] == [False, False, True, False]


def test_a_target_identical_to_its_original_is_refused(tmp_path):
    make_release(tmp_path)
    shutil.copyfile(tmp_path / "Original/deck2.pptx", tmp_path / "GroundTruth/deck2_gt.pptx")
    with pytest.raises(CaseError, match="case-2-normalise-subtitles: the target deck is "
                                        "byte-identical to the original"):
        _cases(tmp_path)


def test_swapped_paths_are_refused(tmp_path):
    make_release(tmp_path, entries=[{
        "name": "swapped", "prompt": "p", "original": "GroundTruth/deck1_gt.pptx",
        "ground_truth": "Original/deck1.pptx", "category": ["Content"], "edit_type": "tables"}])
    with pytest.raises(CaseError, match="swapped: the paths are swapped"):
        _cases(tmp_path)


def test_a_bad_case_list_names_the_entry(tmp_path):
    make_release(tmp_path, entries=[{"name": "no prompt", "original": "x", "ground_truth": "y"}])
    with pytest.raises(CaseError, match="case 4 is not a PPTArena case: prompt"):
        read_case_list(tmp_path / "evaluation_pairs_refined.json")


def test_the_command_refuses_without_writing_or_skips_and_records(tmp_path, capsys):
    import json

    from refig.cli import run as refig

    make_release(tmp_path / "release", hard=("case 4: bring-to-front",))
    shutil.copyfile(tmp_path / "release/Original/deck1.pptx",
                    tmp_path / "release/GroundTruth/deck1_gt.pptx")
    argv = ["suite", "build", "pptarena", "--from", str(tmp_path / "release"), "-q"]
    assert refig([*argv, "--out", str(tmp_path / "refused")]) == 1
    assert "byte-identical" in capsys.readouterr().err
    assert not (tmp_path / "refused").exists()  # nothing half-written
    assert refig([*argv, "--out", str(tmp_path / "suite"), "--skip-invalid"]) == 0
    manifest = json.loads((tmp_path / "suite/suite.json").read_text())
    assert [r["name"] for r in manifest["params"]["refused"]] == ["case 1: table-cell"]
    assert manifest["params"]["hard_subset"] == ["case 4: bring-to-front"]
    tasks = [json.loads(line) for line in (tmp_path / "suite/tasks.jsonl").read_text().splitlines()]
    assert len(tasks) == 3 and all(not t["inputs"]["target"]["visible"] for t in tasks)
    assert all(not t["inputs"]["style_target"]["visible"] for t in tasks)


SECRET = "sk-live-0123456789abcdef"


def _every_byte(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file())


def test_links_out_of_the_release_are_refused_by_name_never_copied(tmp_path, capsys):
    """A hard list and a deck that are symlinks to files outside ``--from``: neither reaches the
    suite; the hard list stops the import, the deck is refused (and named) by --skip-invalid."""
    from refig.cli import run as refig

    release = tmp_path / "release"
    make_release(release)
    outside = tmp_path / "home"
    outside.mkdir()
    (outside / "credentials.txt").write_text(f"{SECRET}\n")
    deck = release / "Original" / "deck2.pptx"
    (outside / "private.pptx").write_bytes(deck.read_bytes() + SECRET.encode())
    deck.unlink()
    deck.symlink_to(outside / "private.pptx")
    (release / "hard_subset.txt").symlink_to(outside / "credentials.txt")
    argv = ["suite", "build", "pptarena", "--from", str(release), "-q", "--skip-invalid"]

    assert refig([*argv, "--out", str(tmp_path / "refused")]) == 1
    said = _flat(capsys.readouterr().err)
    assert _flat("hard_subset.txt is a link") in said
    assert not (tmp_path / "refused").exists()

    (release / "hard_subset.txt").unlink()
    assert refig([*argv, "--out", str(tmp_path / "suite")]) == 0
    said = _flat(capsys.readouterr().err)
    assert _flat("refused case 2: normalise-subtitles") in said
    assert _flat("deck2.pptx is a link") in said
    assert SECRET.encode() not in _every_byte(tmp_path / "suite")
    import json

    manifest = json.loads((tmp_path / "suite/suite.json").read_text())
    assert [r["name"] for r in manifest["params"]["refused"]] == ["case 2: normalise-subtitles"]
