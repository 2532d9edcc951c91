"""CrystalBLEU (Eghbali and Pradel, 2022) through the reference ``crystalbleu`` package.

The trivially shared n-grams are the ``k`` (500) most frequent 1- to 4-grams of one language's
reference programs, counted over their concatenated token stream exactly as the package's
README does, from the reference code only (never a generated program). The score of a program
is ``crystalbleu.sentence_bleu([reference], candidate, ignoring=trivial)`` with uniform 1-4-gram
weights; the smoothing is an option and defaults to none, as the package does.

On a small suite the ignore list can cover every n-gram of some order of a reference (500
n-grams from six programs is most of them): then no program can score above 0 and the value is
not a finding, so :func:`covered_orders` lets the metric report it as not meaningful instead.
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

TRIVIAL_K = 500
MAX_N = 4


def trivial_ngrams(references: Iterable[Sequence[str]], k: int = TRIVIAL_K) -> dict[tuple, int]:
    """The ``k`` most frequent 1-4-grams of the concatenated reference token streams."""
    from nltk.util import ngrams

    stream = [token for tokens in references for token in tokens]
    counts: Counter[tuple] = Counter()
    for n in range(1, MAX_N + 1):
        counts.update(ngrams(stream, n))
    return dict(counts.most_common(k))


def covered_orders(reference: Sequence[str], trivial: dict[tuple, int]) -> tuple[int, ...]:
    """The n-gram orders (1-4) at which the ignore list leaves ``reference`` nothing: at such an
    order no program can match, so CrystalBLEU reads 0 for every program, the reference too."""
    from nltk.util import ngrams

    return tuple(n for n in range(1, MAX_N + 1)
                 if all(gram in trivial for gram in ngrams(reference, n)))


def smoothing(name: str | None) -> Any:
    """An NLTK smoothing function by name (``method1`` ... ``method7``), or None."""
    if not name:
        return None
    from nltk.translate.bleu_score import SmoothingFunction

    method = getattr(SmoothingFunction(), name, None)
    if method is None:
        raise ValueError(f"unknown smoothing {name!r}; use method0 ... method7")
    return method


def crystal_bleu(reference: Sequence[str], candidate: Sequence[str],
                 trivial: dict[tuple, int], *, smooth: str | None = None) -> float:
    """CrystalBLEU of ``candidate`` against ``reference`` (token lists), ignoring ``trivial``."""
    from crystalbleu import sentence_bleu

    if not candidate or not reference:
        return 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the package warns when an n-gram order has no match
        return float(sentence_bleu([list(reference)], list(candidate), ignoring=trivial,
                                   smoothing_function=smoothing(smooth)))
