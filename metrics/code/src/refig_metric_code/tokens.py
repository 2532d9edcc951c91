"""refig's code tokens through Pygments, without comments and whitespace, each string literal
one token (Pygments may split a string into delimiters and body; those parts are joined): the
unit of the smuggling detector's share of numbers, the tiers' code length and a program's
``tokens`` in its structure. CrystalBLEU and FCF's ``L`` use the benchmark's own tokens
(:func:`refig_metric_code.crystal.crystal_tokens`).
"""

from __future__ import annotations

import functools
import re
from collections import Counter

from pygments.lexer import Lexer
from pygments.lexers import MatlabLexer, PythonLexer, SLexer, TexLexer
from pygments.token import Comment, Number, String, Whitespace

from refig_metric_code.languages import Language


@functools.cache
def lexer(language: Language) -> Lexer:
    """The Pygments lexer of ``language`` (one per process: lexers are stateless)."""
    kind = {Language.PYTHON: PythonLexer, Language.MATLAB: MatlabLexer, Language.R: SLexer,
            Language.LATEX: TexLexer}[language]
    return kind(stripnl=False, ensurenl=False)



def code_tokens(source: str, language: Language | str) -> list[str]:
    """The tokens of ``source``: comments and whitespace dropped, each string literal one token."""
    tokens: list[str] = []
    in_string = False
    for kind, value in lexer(Language.parse(str(language))).get_tokens(source):
        if kind in Comment or kind in Whitespace or not value.strip():
            in_string = False
            continue
        if kind in String:
            if in_string:
                tokens[-1] += value
                continue
            in_string = True
        else:
            in_string = False
        tokens.append(value.strip())
    return tokens


def token_count(source: str, language: Language | str) -> int:
    """The number of :func:`code_tokens` of ``source``."""
    return len(code_tokens(source, language))


#: LaTeX has no string or number tokens in Pygments' TeX lexer: its literals are read by pattern.
_LATEX_NUMBER = re.compile(r"(?<![\w\\.])[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_LATEX_WORD = re.compile(r"(?<![\\\w])[A-Za-z][A-Za-z'-]+")
_LATEX_STRUCTURE = re.compile(
    r"\\(?:begin|end|usepackage|documentclass|usetikzlibrary|usepgfplotslibrary|pgfplotsset)"
    r"\*?(?:\[[^\]]*\])?\{[^}]*\}|%[^\n]*|\\[A-Za-z@]+\*?")


def latex_literals(source: str) -> tuple[Counter[str], Counter[str]]:
    """A LaTeX program's words (its text and option values, once the commands, environment and
    package names and comments are removed) and its numbers, as multisets."""
    body = _LATEX_STRUCTURE.sub(" ", source)
    return Counter(_LATEX_WORD.findall(body)), Counter(_LATEX_NUMBER.findall(body))


def literals(source: str, language: Language | str) -> tuple[Counter[str], Counter[str]]:
    """The string literals (quotes stripped) and number literals of ``source``, as multisets:
    the text and the data a plotting program puts in its figure."""
    language = Language.parse(str(language))
    if language is Language.LATEX:
        return latex_literals(source)
    strings: Counter[str] = Counter()
    numbers: Counter[str] = Counter()
    for kind, value in lexer(language).get_tokens(source):
        text = value.strip()
        if not text:
            continue
        if kind in String and text not in ("'", '"', "`"):
            strings[text.strip("'\"`")] += 1
        elif kind in Number:
            numbers[text] += 1
    return +strings, +numbers
