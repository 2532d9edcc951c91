"""Package installation removed from programs before they run.

FigCodeBench's reference programs install their dependencies on the fly (``pip install``,
``install.packages``, ``pkg install``). Programs here never install anything: the statement is
replaced by a no-op and named in the interpreter log, so a program that only *tries* to install
what is already present still runs. The sandbox has no network and read-only libraries, so an
install this misses fails inside the program rather than reaching the network.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from refig_family_figure_to_code.languages import Language

_PY_SHELL = re.compile(r"^(\s*)[!%]\s*(pip3?|conda|mamba)\s+install\b.*$", re.M)
_PY_CALL = re.compile(
    r"^(\s*)(?:\w+\s*=\s*)?(?:subprocess\.\w+|os\.system|os\.popen|check_call|run)\s*\("
    r"[^\n]*\b(?:pip3?|conda|mamba)\b[^\n]*\binstall\b[^\n]*$", re.M)
_PY_PIPMAIN = re.compile(r"^(\s*)(?:pip\.main|pip\._internal\.main)\s*\([^\n]*install[^\n]*$",
                         re.M)
_OCTAVE = re.compile(r"^(\s*)pkg(?:\s+install\b|\s*\(\s*['\"]install['\"]).*$", re.M)
#: R functions that install packages, qualified or not.
_R_INSTALLERS = re.compile(
    r"(?:\b(?:utils|remotes|devtools|BiocManager|pak)\s*::\s*)?"
    r"\b(?:install\.packages|install_github|install_cran|install_version|install_url|"
    r"pkg_install|install)\s*\(")


@dataclass(frozen=True)
class Policed:
    """A program with its installations removed, and a note per removed statement."""

    source: str
    removed: tuple[str, ...]


def _close_paren(text: str, start: int) -> int | None:
    """Index just past the parenthesis matching the one before ``start``, skipping strings."""
    depth, quote, i = 1, "", start
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def _strip_r(source: str) -> tuple[str, list[str]]:
    removed: list[str] = []
    out, pos = [], 0
    for match in _R_INSTALLERS.finditer(source):
        if match.start() < pos:
            continue
        bare = match.group(0)
        # A bare ``install(`` is BiocManager's only when qualified; leave user functions alone.
        if bare.replace(" ", "").startswith("install(") and "::" not in bare:
            continue
        end = _close_paren(source, match.end())
        if end is None:
            continue
        out.append(source[pos:match.start()] + "invisible(NULL)")
        removed.append(source[match.start():end])
        pos = end
    out.append(source[pos:])
    return "".join(out), removed


def _strip_lines(source: str, patterns: list[re.Pattern[str]], noop: str) -> tuple[str, list[str]]:
    removed: list[str] = []

    def replace(match: re.Match[str]) -> str:
        removed.append(match.group(0).strip())
        return match.group(1) + noop

    for pattern in patterns:
        source = pattern.sub(replace, source)
    return source, removed


def police(source: str, language: Language) -> Policed:
    """``source`` with every package installation this recognises replaced by a no-op."""
    if language is Language.PYTHON:
        text, removed = _strip_lines(source, [_PY_SHELL, _PY_CALL, _PY_PIPMAIN],
                                     "pass  # refig: package installation removed")
    elif language is Language.R:
        text, removed = _strip_r(source)
    elif language is Language.MATLAB:
        text, removed = _strip_lines(source, [_OCTAVE], "% refig: package installation removed")
    else:
        text, removed = source, []
    return Policed(text, tuple(removed))
