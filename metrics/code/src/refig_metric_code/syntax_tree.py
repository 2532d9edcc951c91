"""Program syntax trees as multisets of node labels and parent>child productions.

Python through the standard ``ast`` module (labels are node class names); R and MATLAB/Octave
through tree-sitter grammars (``tree-sitter-language-pack``; labels are the named node types);
LaTeX through pylatexenc (labels are node kinds with the macro or environment name, as in
``macro:addplot`` or ``env:axis``, since those carry the structure of a TikZ picture). AST
similarity is the multiset Dice coefficient of the two label-and-production multisets.
"""

from __future__ import annotations

import ast
import functools
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from refig_metric_code.languages import Language

#: Deeper trees than this are cut (a generated program may nest without bound).
MAX_DEPTH = 200


class ParseFailure(ValueError):
    """The program does not parse in its language."""


@dataclass(frozen=True)
class Tree:
    """The summary of one syntax tree: label multiset, production multiset, size and depth."""

    labels: Counter[str]
    productions: Counter[str]
    size: int
    depth: int

    def bag(self) -> Counter[str]:
        """Labels and productions as one multiset (productions prefixed so they never clash)."""
        return self.labels + Counter({f"{k}>": v for k, v in self.productions.items()})


def _summarise(root: Any, label: Any, children: Any) -> Tree:
    labels: Counter[str] = Counter()
    productions: Counter[str] = Counter()
    depth = 0
    stack = [(root, 1)]
    while stack:
        node, level = stack.pop()
        name = label(node)
        labels[name] += 1
        depth = max(depth, level)
        if level >= MAX_DEPTH:
            continue
        for child in children(node):
            productions[f"{name}>{label(child)}"] += 1
            stack.append((child, level + 1))
    return Tree(labels, productions, sum(labels.values()), depth)


def _python(source: str) -> Tree:
    try:
        root = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise ParseFailure(str(exc)) from exc
    return _summarise(root, lambda n: type(n).__name__, ast.iter_child_nodes)


@functools.cache
def parser(name: str) -> Any:
    from tree_sitter_language_pack import get_parser

    return get_parser(name)  # type: ignore[arg-type]


def _tree_sitter(source: str, grammar: str) -> Tree:
    tree = parser(grammar).parse(source.encode("utf-8"))
    return _summarise(tree.root_node, lambda n: n.type, lambda n: n.named_children)


def latex_children(node: Any) -> Iterator[Any]:
    from pylatexenc.latexwalker import LatexNode

    for child in getattr(node, "nodelist", None) or ():
        if child is not None:
            yield child
    args = getattr(node, "nodeargd", None)
    for arg in getattr(args, "argnlist", None) or ():
        if isinstance(arg, LatexNode):
            yield arg


def _latex_label(node: Any) -> str:
    kind = type(node).__name__.removeprefix("Latex").removesuffix("Node").lower()
    name = getattr(node, "macroname", None) or getattr(node, "environmentname", None)
    return f"{kind}:{name}" if name else kind


def _latex(source: str) -> Tree:
    from pylatexenc.latexwalker import LatexGroupNode, LatexWalker

    try:
        nodes, _, _ = LatexWalker(source, tolerant_parsing=True).get_latex_nodes()
    except Exception as exc:  # pylatexenc raises its own hierarchy and plain errors alike
        raise ParseFailure(str(exc)) from exc
    root = LatexGroupNode(nodelist=nodes, delimiters=("", ""), parsing_state=None)
    return _summarise(root, _latex_label, latex_children)


def syntax_tree(source: str, language: Language | str) -> Tree:
    """The :class:`Tree` of ``source``; :class:`ParseFailure` when Python cannot parse it."""
    language = Language.parse(str(language))
    if language is Language.PYTHON:
        return _python(source)
    if language is Language.LATEX:
        return _latex(source)
    return _tree_sitter(source, "r" if language is Language.R else "matlab")


def dice(a: Counter[str], b: Counter[str]) -> float:
    """Multiset Dice: 2 |a ∩ b| / (|a| + |b|); 1 for two empty multisets."""
    total = sum(a.values()) + sum(b.values())
    if total == 0:
        return 1.0
    return 2 * sum((a & b).values()) / total


def ast_similarity(reference: str, generated: str, language: Language | str) -> float:
    """Dice of the label-and-production multisets; 0 when the generated program does not parse."""
    try:
        mine = syntax_tree(generated, language)
    except ParseFailure:
        return 0.0
    return dice(syntax_tree(reference, language).bag(), mine.bag())
