"""The code half of the `code` metric for many programs at once: each reference program is
read once (tokens, syntax-tree multiset, plotting calls) however many generated programs are
compared with it, and the trivial n-grams are learned once per language."""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass

from refig_metric_code.calls import api_f1, plotting_calls
from refig_metric_code.crystal import (
    PairCounts,
    corpus_score,
    covered_orders,
    crystal_tokens,
    pair_counts,
    unfenced,
)
from refig_metric_code.languages import Language
from refig_metric_code.syntax_tree import ParseFailure, dice, syntax_tree


@dataclass(frozen=True)
class Facts:
    """What the code metrics read of one program."""

    tokens: tuple[str, ...]
    bag: Counter[str] | None
    calls: Counter[str]


def facts(source: str, language: Language) -> Facts:
    """Tokens, syntax-tree multiset (None when it does not parse) and plotting calls."""
    try:
        bag: Counter[str] | None = syntax_tree(source, language).bag()
    except ParseFailure:
        bag = None
    return Facts(tuple(crystal_tokens(source, language)), bag,
                 plotting_calls(unfenced(source), language))


@functools.lru_cache(maxsize=4096)
def reference_facts(source: str, language: Language) -> Facts:
    """:func:`facts` of a reference program, remembered."""
    return facts(source, language)


@dataclass(frozen=True)
class CodeScores:
    """One generated program's code scores: its CrystalBLEU counts (what the corpus value sums)
    and own score, AST similarity, plotting-API F1 and lengths; ``covered`` lists the n-gram
    orders the ignore list leaves the reference nothing of."""

    counts: PairCounts
    crystalbleu_sentence: float
    ast: float
    api_f1: float
    tokens: int
    reference_tokens: int
    covered: tuple[int, ...] = ()


def score_code(reference: str, generated: str, language: Language,
               trivial: dict[tuple, int]) -> CodeScores:
    """The code scores of ``generated`` against ``reference``."""
    ref = reference_facts(reference, language)
    gen = facts(generated, language)
    ast = 0.0 if gen.bag is None or ref.bag is None else dice(ref.bag, gen.bag)
    counts = pair_counts(ref.tokens, gen.tokens, trivial)
    return CodeScores(counts, corpus_score([counts]) or 0.0, ast, api_f1(ref.calls, gen.calls),
                      len(gen.tokens), len(ref.tokens), covered_orders(ref.tokens, trivial))
