"""CrystalBLEU (Eghbali and Pradel, 2022) as FigCodeBench computes it, through the ``crystalbleu``
package.

* Tokens (:func:`crystal_tokens`): the program with a leading and a trailing Markdown fence
  removed, lexed by the Pygments lexer ``get_lexer_for_filename`` picks for the language's file
  suffix (``.py``, ``.m``, ``.R``, ``.tex``; for ``.m`` that is Pygments' Objective-C lexer, as
  in the benchmark), comment and whitespace tokens dropped, every remaining token value split
  by ``[A-Za-z_]\\w*|\\d+(?:\\.\\d+)?|[^\\w\\s]``.
* Ignored n-grams (:func:`trivial_ngrams`): the 500 most frequent 1- to 4-grams counted over
  each of one language's reference programs (n-grams never span two programs), from the
  reference code only.
* Score: ``crystalbleu.corpus_bleu`` over all (reference, generated) pairs of a group, uniform
  weights, NLTK's ``SmoothingFunction().method3``. It is a corpus value: the metric stores each
  pair's clipped n-gram counts and lengths (:func:`pair_counts`) and the report sums them
  (:func:`corpus_score`). A program's own score (``crystalbleu_sentence``, refig's) is the same
  formula over its pair alone.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from refig_metric_code.languages import Language

TRIVIAL_K = 500
MAX_N = 4
SMOOTHING = "method3"
SUFFIX = {Language.PYTHON: ".py", Language.MATLAB: ".m", Language.R: ".R", Language.LATEX: ".tex"}
_SPLIT = re.compile(r"[A-Za-z_]\w*|\d+(?:\.\d+)?|[^\w\s]")
_FENCE_OPEN = re.compile(r"\A\s*```(?:python|matlab|r|latex|tex)?\s*\n", re.IGNORECASE)
_FENCE_CLOSE = re.compile(r"\n\s*```\s*\Z")


def unfenced(source: str) -> str:
    """The program without a leading Markdown fence line and a trailing fence."""
    return _FENCE_CLOSE.sub("\n", _FENCE_OPEN.sub("", source))


@functools.cache
def _lexer(language: Language) -> Any:
    from pygments.lexers import get_lexer_for_filename

    return get_lexer_for_filename("program" + SUFFIX[language])


def crystal_tokens(source: str, language: Language | str) -> list[str]:
    """The benchmark's CrystalBLEU tokens of ``source`` (also ``L`` in FCF, see fcf.py)."""
    from pygments import lex
    from pygments.token import Token

    out: list[str] = []
    for kind, value in lex(unfenced(source), _lexer(Language.parse(str(language)))):
        if kind in Token.Comment or kind in Token.Text.Whitespace:
            continue
        out.extend(_SPLIT.findall(value))
    return out


def trivial_ngrams(references: Iterable[Sequence[str]], k: int = TRIVIAL_K) -> dict[tuple, int]:
    """The ``k`` most frequent 1-4-grams over the reference token lists, each list counted on
    its own."""
    from nltk.util import ngrams

    counts: Counter[tuple] = Counter()
    for tokens in references:
        for n in range(1, MAX_N + 1):
            counts.update(ngrams(tokens, n))
    return dict(counts.most_common(k))


def covered_orders(reference: Sequence[str], trivial: dict[tuple, int]) -> tuple[int, ...]:
    """The n-gram orders (1-4) at which the ignore list leaves ``reference`` nothing: at such an
    order no program can match, and the score is smoothing alone."""
    from nltk.util import ngrams

    return tuple(n for n in range(1, MAX_N + 1)
                 if all(gram in trivial for gram in ngrams(reference, n)))


@dataclass(frozen=True)
class PairCounts:
    """What ``corpus_bleu`` sums over one pair: clipped matches and candidate n-grams per order
    (1-4), the candidate's length and the reference's."""

    matches: tuple[int, ...]
    totals: tuple[int, ...]
    hyp_len: int
    ref_len: int

    def as_detail(self) -> dict[str, Any]:
        return {"matches": list(self.matches), "totals": list(self.totals),
                "hyp_len": self.hyp_len, "ref_len": self.ref_len}

    @classmethod
    def from_detail(cls, detail: dict[str, Any]) -> PairCounts:
        return cls(tuple(int(x) for x in detail["matches"]),
                   tuple(int(x) for x in detail["totals"]),
                   int(detail["hyp_len"]), int(detail["ref_len"]))


def pair_counts(reference: Sequence[str], candidate: Sequence[str],
                trivial: dict[tuple, int]) -> PairCounts:
    """The package's modified precisions of ``candidate`` against ``reference``."""
    from crystalbleu import modified_precision

    fractions = [modified_precision([list(reference)], list(candidate), n, ignoring=trivial)
                 for n in range(1, MAX_N + 1)]
    return PairCounts(tuple(f.numerator for f in fractions),
                      tuple(f.denominator for f in fractions), len(candidate), len(reference))


def corpus_score(pairs: Iterable[PairCounts]) -> float | None:
    """Corpus CrystalBLEU of the pairs (``corpus_bleu`` with method3 smoothing, uniform weights);
    None for no pairs."""
    pairs = list(pairs)
    if not pairs:
        return None
    matches = [sum(p.matches[i] for p in pairs) for i in range(MAX_N)]
    totals = [sum(p.totals[i] for p in pairs) for i in range(MAX_N)]
    hyp_len, ref_len = sum(p.hyp_len for p in pairs), sum(p.ref_len for p in pairs)
    if matches[0] == 0:
        return 0.0
    precisions: list[float] = []
    k = 1  # method3 (mteval-v13a): the k-th order without a match counts 1 / (2^k x total)
    for match, total in zip(matches, totals, strict=True):
        if match == 0:
            precisions.append(1 / (2**k * total))
            k += 1
        else:
            precisions.append(float(Fraction(match, total)))
    if hyp_len > ref_len:
        penalty = 1.0
    elif hyp_len == 0:
        penalty = 0.0
    else:
        penalty = math.exp(1 - ref_len / hyp_len)
    return penalty * math.exp(math.fsum(0.25 * math.log(p) for p in precisions))
