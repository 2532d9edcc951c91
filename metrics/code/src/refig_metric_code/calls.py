"""The plotting calls a program makes, as a multiset, and plotting-API F1, as FigCodeBench's
``compute_code_oriented_metrics.py`` computes them.

* Python: the ``ast.Call`` nodes whose callee is a name or an attribute (its last name); when the
  program does not parse, every ``name(`` (after any ``a.b.`` prefix) found by regular
  expression instead.
* MATLAB: every ``name(`` not preceded by a word character or a dot, compared without case.
* R: every ``name(`` or ``pkg::name(`` (dots allowed in names), the name after ``::``; it counts
  when listed or starting with a listed prefix (``geom_``...) and not excluded.
* LaTeX: the listed macros ``\\name`` (``macro:name``) and the listed environments of
  ``\\begin{name}`` (``environment:name``), without case.

Names are kept lower-cased. F1 is the multiset F1 (three ``plot`` calls against one is recall
1/3 and precision 1); two programs with no plotting call at all score 1.
"""

from __future__ import annotations

import ast
import re
from collections import Counter

from refig_metric_code import api_lists as lists
from refig_metric_code.languages import Language

_PY_FALLBACK = re.compile(r"(?<![\w.])(?:[A-Za-z_]\w*\.)*([A-Za-z_]\w*)\s*\(")
_MATLAB_CALL = re.compile(r"(?<![\w.])([A-Za-z]\w*)\s*\(")
_R_CALL = re.compile(r"(?<![\w.])((?:[A-Za-z.][\w.]*:::{0,1})?[A-Za-z.][\w.]*)\s*\(")
_TEX_MACRO = re.compile(r"\\([A-Za-z@]+\+?)")
_TEX_ENV = re.compile(r"\\begin\s*\{([^}]+)\}")
_MATLAB_LOWER = frozenset(n.lower() for n in lists.MATLAB)
_MATLAB_EXCLUDED_LOWER = frozenset(n.lower() for n in lists.MATLAB_EXCLUDED)
_TEX_MACROS_LOWER = frozenset(n.lower() for n in lists.LATEX_MACROS)
_TEX_ENVS_LOWER = frozenset(n.lower() for n in lists.LATEX_ENVIRONMENTS)


def _python(source: str) -> list[str]:
    def counts(name: str | None) -> bool:
        return name in lists.PYTHON and name not in lists.PYTHON_EXCLUDED

    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return [n.lower() for n in _PY_FALLBACK.findall(source) if counts(n)]
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else \
                func.attr if isinstance(func, ast.Attribute) else None
            if counts(name):
                names.append(name.lower())
    return names


def _matlab(source: str) -> list[str]:
    return [n.lower() for n in _MATLAB_CALL.findall(source)
            if n.lower() in _MATLAB_LOWER and n.lower() not in _MATLAB_EXCLUDED_LOWER]


def _r(source: str) -> list[str]:
    names = []
    for raw in _R_CALL.findall(source):
        name = raw.split("::")[-1]
        listed = name in lists.R or name.startswith(lists.R_PREFIXES)
        if listed and name not in lists.R_EXCLUDED:
            names.append(name.lower())
    return names


def _latex(source: str) -> list[str]:
    macros = [f"macro:{m.lower()}" for m in _TEX_MACRO.findall(source)
              if m.lower() in _TEX_MACROS_LOWER]
    envs = [f"environment:{e.lower()}" for e in _TEX_ENV.findall(source)
            if e.lower() in _TEX_ENVS_LOWER]
    return macros + envs


_READERS = {Language.PYTHON: _python, Language.MATLAB: _matlab, Language.R: _r,
            Language.LATEX: _latex}


def plotting_calls(source: str, language: Language | str) -> Counter[str]:
    """The listed plotting calls of ``source``, counted."""
    return Counter(_READERS[Language.parse(str(language))](source))


def api_f1(reference: Counter[str], generated: Counter[str]) -> float:
    """Multiset F1 of the generated calls against the reference's; 1 when both are empty."""
    ref_n, gen_n = sum(reference.values()), sum(generated.values())
    if ref_n == 0 and gen_n == 0:
        return 1.0
    overlap = sum((reference & generated).values())
    precision = overlap / gen_n if gen_n else 0.0
    recall = overlap / ref_n if ref_n else 0.0
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0
