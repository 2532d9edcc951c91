"""One-to-one matching of word tokens, exact first, then fuzzy.

Tokens are case-folded NFKC words (:func:`refig_toolkit_pptx.word_tokens`). Each token of one side
matches at most one token of the other (multisets: "the" twice in the source needs "the" twice on
the slide). Exact matches are taken first; the remaining tokens are paired by an optimal
assignment (``scipy.optimize.linear_sum_assignment``) on their ``rapidfuzz.fuzz.ratio``
similarity, keeping pairs at or above ``min_similarity`` (0-100). Tokens shorter than
``MIN_FUZZY_LENGTH`` only match exactly: one wrong letter in "x1" is a different label.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from rapidfuzz import fuzz, process

MIN_FUZZY_LENGTH = 4
DEFAULT_SIMILARITY = 80.0
#: Fuzzy matching is quadratic; beyond this many leftover tokens a side is cut (a slide or
#: figure with thousands of words is not a figure).
MAX_FUZZY_TOKENS = 2000


@dataclass(frozen=True)
class TokenMatch:
    """How two token multisets overlap: the matched count and what is left on each side."""

    matched: int
    exact: int
    unmatched_left: tuple[str, ...]
    unmatched_right: tuple[str, ...]


def match_tokens(
    left: Sequence[str], right: Sequence[str], min_similarity: float = DEFAULT_SIMILARITY
) -> TokenMatch:
    """Match ``left`` against ``right`` one to one; see the module docstring for the rule."""
    common = Counter(left) & Counter(right)
    rest_left = list((Counter(left) - common).elements())
    rest_right = list((Counter(right) - common).elements())
    exact = sum(common.values())
    fuzzy_left = [t for t in rest_left if len(t) >= MIN_FUZZY_LENGTH][:MAX_FUZZY_TOKENS]
    fuzzy_right = [t for t in rest_right if len(t) >= MIN_FUZZY_LENGTH][:MAX_FUZZY_TOKENS]
    paired_left: Counter[str] = Counter()
    paired_right: Counter[str] = Counter()
    if fuzzy_left and fuzzy_right:
        scores = process.cdist(
            fuzzy_left,
            fuzzy_right,
            scorer=fuzz.ratio,
            score_cutoff=min_similarity,
            dtype=np.float32,
        )
        from scipy.optimize import linear_sum_assignment  # here: scipy costs a second to import

        rows, cols = linear_sum_assignment(scores, maximize=True)
        for row, col in zip(rows, cols, strict=True):
            if scores[row, col] >= min_similarity:
                paired_left[fuzzy_left[row]] += 1
                paired_right[fuzzy_right[col]] += 1
    return TokenMatch(
        matched=exact + sum(paired_left.values()),
        exact=exact,
        unmatched_left=tuple((Counter(rest_left) - paired_left).elements()),
        unmatched_right=tuple((Counter(rest_right) - paired_right).elements()),
    )
