"""LaTeX's warm path: one xelatex per shared preamble, forked per document.

XeTeX cannot dump a format holding the OpenType fonts every class loads
(docs/figure-to-code.md, *Warm interpreters*), so a preamble cannot be preloaded; but a running
xelatex that has read it can be forked. ``drivers/texfork.c``, preloaded into xelatex, forks a
fresh child per document where the preamble's shared lines end (see its header); the child
reads the rest of the program with the same line numbers, under the same job name, in its own
folder, from the state a cold run of the whole program reaches at that line.

Only whole lines that leave TeX at the top level are shared (:func:`split`): the
``\\documentclass`` line first, then ``\\usepackage``, ``\\RequirePackage``, ``\\usetikzlibrary``,
``\\usepgfplotslibrary`` and ``\\pgfplotsset{compat=...}`` lines with balanced, brace-free
arguments, blank lines and comment lines. The library is compiled once per source with the
system's C compiler into refig's cache; without a compiler LaTeX runs cold.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from importlib import resources
from pathlib import Path
from typing import NamedTuple

from refig.plugin import cache_dir

from refig_family_figure_to_code.languages import Language
from refig_family_figure_to_code.toolchains import RUN_NAMES

SOURCE = "texfork.c"
#: The program's file, whose open ``drivers/texfork.c`` forks at (it names it too).
PROGRAM = RUN_NAMES[Language.LATEX]
#: The file a forked child is handed as :data:`PROGRAM`.
REST = "refig-rest.tex"
#: The server's main file; its job name is the program's.
SERVER = "refig-server.tex"
#: The C compilers tried, in order.
COMPILERS = ("cc", "gcc")
_SHARED_LINE = re.compile(
    r"\\(?:documentclass|usepackage|RequirePackage|usetikzlibrary|usepgfplotslibrary)"
    r"(?:\[[^\[\]{}%\\]*\])?\{[^{}%\\]*\}"
    r"|\\pgfplotsset\{compat=[\w.]+\}")


class Split(NamedTuple):
    """A program cut where its shared preamble lines end."""

    shared: str
    #: The rest, the shared lines replaced by comment lines (the program's line numbers).
    rest: str


def split(program: str) -> Split | None:
    """``program``'s leading lines that a server may read for it, or None when it has none.

    The lines taken start with ``\\documentclass`` and stop at the first line that is not one of
    the declarations named above, blank, or a comment."""
    lines = program.splitlines(keepends=True)
    taken = 0
    for line in lines:
        text = line.rstrip("\r\n").rstrip(" \t")
        if not line.endswith("\n") or (taken == 0 and not text.startswith("\\documentclass")):
            break
        if text and not text.startswith("%") and not _SHARED_LINE.fullmatch(text):
            break
        taken += 1
    if taken == 0:
        return None
    return Split("".join(lines[:taken]), "%\n" * taken + "".join(lines[taken:]))


def server_source(shared: str) -> str:
    """The server's main file: the shared lines, then the document through the fork point."""
    return f"{shared}\\csname @@input\\endcsname {PROGRAM}\n"


@functools.cache
def _source() -> tuple[bytes, str]:
    source = resources.files("refig_family_figure_to_code.drivers").joinpath(SOURCE).read_bytes()
    return source, hashlib.sha256(source).hexdigest()[:32]


#: Compilers that failed, by the folder they were to fill: not tried again in this process.
_FAILED: set[Path] = set()


def library() -> Path | None:
    """The compiled fork library (made once per source into refig's cache), or None when this
    machine has no C compiler or it fails."""
    source, digest = _source()
    folder = cache_dir() / "texfork" / digest
    made = folder / "texfork.so"
    if made.is_file():
        return made
    compiler = next(filter(None, map(shutil.which, COMPILERS)), None)
    if compiler is None or folder in _FAILED:
        return None
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder) as scratch:
        (Path(scratch) / SOURCE).write_bytes(source)
        partial = Path(scratch) / "texfork.so"
        try:
            subprocess.run([compiler, "-shared", "-fPIC", "-O2", "-o", str(partial),
                            str(Path(scratch) / SOURCE), "-ldl"],
                           check=True, capture_output=True, timeout=120)
        except (OSError, subprocess.SubprocessError):
            _FAILED.add(folder)
            return None
        os.chmod(partial, 0o555)
        os.replace(partial, made)
    return made
