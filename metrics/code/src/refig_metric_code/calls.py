"""The plotting calls a program makes, and plotting-API F1 between two programs.

Calls are read from the syntax tree: Python ``ast.Call`` nodes (the last name of the callee);
R ``call`` nodes (the function name after any ``pkg::``); MATLAB/Octave ``function_call`` and
command-syntax nodes (``hold on``); LaTeX macros and environments. Only names on the language's
allow-list count (:mod:`.api_lists`). F1 is over the sets of distinct calls; two programs with
no plotting call at all score 1.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from refig_metric_code.api_lists import ALLOWED, EXCLUDED
from refig_metric_code.languages import Language
from refig_metric_code.syntax_tree import ParseFailure, latex_children, parser


def _python_calls(source: str) -> Iterator[str]:
    try:
        root = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise ParseFailure(str(exc)) from exc
    for node in ast.walk(root):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute):
                yield func.attr
            elif isinstance(func, ast.Name):
                yield func.id


def _tree_sitter_calls(source: str, grammar: str) -> Iterator[str]:
    root = parser(grammar).parse(source.encode("utf-8")).root_node
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(node.named_children)
        if grammar == "r" and node.type == "call":
            callee = node.child_by_field_name("function") or node.named_children[0]
            name = callee.text.decode("utf-8", "replace")
            yield name.rsplit("::", 1)[-1].rsplit("$", 1)[-1]
        elif grammar == "matlab" and node.type in ("function_call", "command"):
            head = node.child_by_field_name("name") or node.named_children[0]
            yield head.text.decode("utf-8", "replace").split(".")[-1]


def _latex_calls(source: str) -> Iterator[str]:
    from pylatexenc.latexwalker import LatexWalker

    try:
        nodes, _, _ = LatexWalker(source, tolerant_parsing=True).get_latex_nodes()
    except Exception as exc:  # pylatexenc raises its own hierarchy and plain errors alike
        raise ParseFailure(str(exc)) from exc
    stack = list(nodes or ())
    while stack:
        node = stack.pop()
        name = getattr(node, "macroname", None) or getattr(node, "environmentname", None)
        if name:
            yield name
        stack.extend(latex_children(node))


def plotting_calls(source: str, language: Language | str) -> set[str]:
    """The distinct allow-listed plotting calls of ``source`` (empty when it does not parse)."""
    language = Language.parse(str(language))
    reader = {Language.PYTHON: _python_calls, Language.LATEX: _latex_calls}.get(language)
    try:
        names = set(reader(source) if reader else
                    _tree_sitter_calls(source, "r" if language is Language.R else "matlab"))
    except ParseFailure:
        return set()
    return (names & ALLOWED[language]) - EXCLUDED[language]


def api_f1(reference: set[str], generated: set[str]) -> float:
    """F1 of the generated call set against the reference one; 1 when both are empty."""
    if not reference and not generated:
        return 1.0
    hits = len(reference & generated)
    if hits == 0:
        return 0.0
    precision, recall = hits / len(generated), hits / len(reference)
    return 2 * precision * recall / (precision + recall)
