"""The code half of the `code` metric for many programs at once: each reference program is
read once (tokens, syntax-tree multiset, plotting calls) however many generated programs are
compared with it, and the trivial n-grams are learned once per language."""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass

from refig_metric_code.calls import api_f1, plotting_calls
from refig_metric_code.crystal import covered_orders, crystal_bleu
from refig_metric_code.languages import Language
from refig_metric_code.syntax_tree import ParseFailure, dice, syntax_tree
from refig_metric_code.tokens import code_tokens


@dataclass(frozen=True)
class Facts:
    """What the code metrics read of one program."""

    tokens: tuple[str, ...]
    bag: Counter[str] | None
    calls: frozenset[str]


def facts(source: str, language: Language) -> Facts:
    """Tokens, syntax-tree multiset (None when it does not parse) and plotting calls."""
    try:
        bag: Counter[str] | None = syntax_tree(source, language).bag()
    except ParseFailure:
        bag = None
    return Facts(tuple(code_tokens(source, language)), bag,
                 frozenset(plotting_calls(source, language)))


@functools.lru_cache(maxsize=4096)
def reference_facts(source: str, language: Language) -> Facts:
    """:func:`facts` of a reference program, remembered."""
    return facts(source, language)


@dataclass(frozen=True)
class CodeScores:
    """CrystalBLEU, AST similarity and plotting-API F1 of one generated program; CrystalBLEU
    is None when the ignore list covers an n-gram order of the reference (``covered``)."""

    crystalbleu: float | None
    ast: float
    api_f1: float
    tokens: int
    reference_tokens: int
    covered: tuple[int, ...] = ()


def score_code(reference: str, generated: str, language: Language, trivial: dict[tuple, int],
               *, smooth: str | None = None) -> CodeScores:
    """The code scores of ``generated`` against ``reference``."""
    ref = reference_facts(reference, language)
    gen = facts(generated, language)
    ast = 0.0 if gen.bag is None or ref.bag is None else dice(ref.bag, gen.bag)
    covered = covered_orders(ref.tokens, trivial)
    bleu = None if covered else crystal_bleu(ref.tokens, gen.tokens, trivial, smooth=smooth)
    return CodeScores(bleu, ast, api_f1(set(ref.calls), set(gen.calls)), len(gen.tokens),
                      len(ref.tokens), covered)
