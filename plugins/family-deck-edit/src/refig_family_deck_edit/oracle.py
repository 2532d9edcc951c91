"""The deterministic IF oracle of generated tasks: the prediction read against the exact edit
specification instead of a target deck.

Each expected ``(slide, target, field, value)`` is achieved when the original -> prediction diff
changed that key to that value. Changes on no expected (or allowed) key are collateral. The score
is ``5 x recall x share``, ``share`` being the prediction's changes that land on expected keys over
all its changes that are not allowed side effects (1 when it changed nothing), rounded half up to
an integer like a judge's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict

from refig_family_deck_edit.diff import Change, changes, plain, same
from refig_family_deck_edit.structure import DeckStructure


class OracleVerdict(BaseModel):
    """What the spec says of a prediction."""

    model_config = ConfigDict(frozen=True)

    expected: int
    achieved: tuple[tuple[str, str, str], ...]
    missed: tuple[tuple[str, str, str], ...]
    collateral: tuple[Change, ...]
    on_spec: int

    @property
    def recall(self) -> float:
        return len(self.achieved) / self.expected if self.expected else 1.0

    @property
    def score(self) -> int:
        """Instruction following, 0-5."""
        made = self.on_spec + len(self.collateral)
        share = self.on_spec / made if made else 1.0
        return math.floor(5 * self.recall * share + 0.5)


def oracle(original: DeckStructure, prediction: DeckStructure,
           spec: Mapping[str, Any]) -> OracleVerdict:
    """Check ``prediction`` against the edit ``spec`` (the generated task's annotation)."""
    expect = {(str(e["slide"]), str(e["target"]), str(e["field"])): e["value"]
              for e in spec.get("expect", ())}
    allowed = {tuple(key) for key in spec.get("allow", ())}
    done = {c.key: c for c in changes(original, prediction)}
    achieved = tuple(k for k, value in expect.items()
                     if k in done and same(k[2], done[k].after, plain(value)))
    missed = tuple(k for k in expect if k not in achieved)
    collateral = tuple(c for k, c in done.items() if k not in expect and k not in allowed)
    on_spec = sum(1 for k in done if k in expect)
    return OracleVerdict(expected=len(expect), achieved=achieved, missed=missed,
                         collateral=collateral, on_spec=on_spec)
