"""One probe's outcome, and the score the metric makes of them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from hashlib import sha256
from typing import Any


@dataclass
class Outcome:
    """A probe on one slide (or program): applicable or not (with why), passed or not, and the
    numbers it was decided on. ``passed`` is None when it applied but could not be measured."""

    probe: str
    applicable: bool
    passed: bool | None = None
    reason: str = ""
    slide: int | None = None
    evidence: dict[str, Any] = field(default_factory=dict)
    #: The renderings the check compared (PNG bytes), by role: ``before`` (the unedited slide,
    #: from the same conversion; a program's stored image) and ``after`` (the edited one).
    pictures: dict[str, bytes] = field(default_factory=dict, repr=False)

    def record(self) -> dict[str, Any]:
        """A JSON-ready record for a value's detail; each picture as its sha256 (``renders``)."""
        found = {key: value for key, value in asdict(self).items() if key != "pictures"}
        if self.pictures:
            found["renders"] = {
                role: sha256(png).hexdigest() for role, png in self.pictures.items()
            }
        return {key: value for key, value in found.items() if value not in (None, "", {})}


def not_applicable(probe: str, reason: str, slide: int | None = None) -> Outcome:
    """A probe that cannot apply: never counted as a pass."""
    return Outcome(probe, applicable=False, reason=reason, slide=slide)


def score(outcomes: Sequence[Outcome]) -> tuple[float | None, int]:
    """The share of measured applicable probes that passed, and how many applied and were
    measured (None when none did)."""
    measured = [o for o in outcomes if o.applicable and o.passed is not None]
    if not measured:
        return None, 0
    return sum(1 for o in measured if o.passed) / len(measured), len(measured)
