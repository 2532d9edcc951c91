"""deck-edit's part of ``refig demo``: the generated deck sample, the ``identity`` and
``oracle`` baselines, under the offline ``deck-metrics`` judge."""

from __future__ import annotations

from typing import Any

from refig.plugin import FamilyDemo


def oracle_above_identity(outcome: Any) -> tuple[str, bool]:
    """The claim: the target deck scores above the untouched original."""
    oracle, identity = outcome.verdict("oracle"), outcome.verdict("identity")
    return ("the oracle (the target deck) scores above identity (the original returned)",
            oracle.judged > 0 and oracle.total > identity.total)


DEMO = FamilyDemo("deck-sample", ("identity", "oracle"), judge="deck-metrics",
                  folder="deck-edit", check=oracle_above_identity)
