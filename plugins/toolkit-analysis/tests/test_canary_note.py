"""The Environment table's note on the golden canary: its status at the last evaluation, and
the digests when the run was evaluated in several canary environments."""

from __future__ import annotations

from refig_toolkit_analysis.analysis.provenance import _canary_note


def test_the_note_says_the_status_and_names_mixed_environments() -> None:
    assert _canary_note({}) == ""
    one = {"status": "passed", "environment": "a" * 64, "environments": ["a" * 64]}
    assert _canary_note(one) == "golden canary at the last evaluation: passed"
    mixed = {**one, "environments": ["a" * 64, "b" * 64]}
    assert _canary_note(mixed) == (
        "golden canary at the last evaluation: passed; the run was evaluated in 2 canary "
        f"environments ({'a' * 12}, {'b' * 12}, added with --mixed-environments): its numbers "
        "mix set-ups")
    assert _canary_note({"status": "not checked (--no-canary)", "environments": []}) == \
        "golden canary at the last evaluation: not checked (--no-canary)"
