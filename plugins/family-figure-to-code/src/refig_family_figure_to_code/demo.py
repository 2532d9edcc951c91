"""figure-to-code's part of ``refig demo``: the generated code sample, the ``reference``,
``blank`` and ``smuggle`` baselines, under the offline ``code-metrics`` judge."""

from __future__ import annotations

from typing import Any

from refig.plugin import FamilyDemo


def reference_above_the_rest(outcome: Any) -> tuple[str, bool]:
    """The claim: the reference program beats a blank figure, and a program that smuggles the
    image in is capped on every judgment."""
    reference, blank = outcome.verdict("reference"), outcome.verdict("blank")
    smuggle = outcome.verdict("smuggle")
    caught = smuggle.judged > 0 and smuggle.capped == smuggle.judged
    return ("the reference program scores above blank and the smuggled image is capped",
            caught and reference.total > blank.total and reference.total > smuggle.total)


DEMO = FamilyDemo("code-sample", ("reference", "blank", "smuggle"), judge="code-metrics",
                  folder="figure-to-code", check=reference_above_the_rest)
