"""figure-to-slide's part of ``refig demo``: the sample suite, the ``cv`` rebuild and the
``raster-paste`` cheat the flattening cap exists to catch, under the offline ``metrics`` judge."""

from __future__ import annotations

from typing import Any

from refig.plugin import FamilyDemo


def paste_is_caught(outcome: Any) -> tuple[str, bool]:
    """The claim: the raster paste is capped on every judgment and scores below the cv
    rebuild on editability."""
    paste, native = outcome.verdict("raster-paste"), outcome.verdict("cv")
    caught = paste.judged > 0 and paste.capped == paste.judged
    return ("raster paste caught by the flattening cap and below cv on editability",
            caught and paste.editability < native.editability)


#: Written to ``--out`` itself: the README documents it.
DEMO = FamilyDemo("sample", ("cv", "raster-paste"), check=paste_is_caught)
